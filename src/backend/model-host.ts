import type { Observable } from 'rxjs';
import type { InferenceRequest, InferenceResponse } from '../inference/index.js';
import type { CustomMetricsScope } from './custom-metrics-scope.js';
import type { ModelControl } from './model-control.js';

/** In-process entry to the server, handed to backends at load (BLS children) and to pipeline steps. */
export interface ModelHost {
  infer(request: InferenceRequest): Observable<InferenceResponse>;
  /** A BLS child call ended (metrics): `caller`'s script called `callee`, for `ns` from start to end. */
  childCall?(caller: string, callee: string, ns: number, success: boolean): void;
  /** A model version's custom metrics, opened at its load and closed at its unload. */
  customMetrics?(model: string, version: string): CustomMetricsScope;
  /** The repository API, for scripts (load, unload, readiness of other models). */
  control?: ModelControl;
}
