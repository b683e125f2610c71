import type { Observable } from 'rxjs';
import type { InferenceRequest, InferenceResponse } from '../inference/index.js';

/** In-process entry to the server, handed to backends at load (BLS children) and to pipeline steps. */
export interface ModelHost {
  infer(request: InferenceRequest): Observable<InferenceResponse>;
  /** A BLS child call ended (metrics): `caller`'s script called `callee`, for `ns` from start to end. */
  childCall?(caller: string, callee: string, ns: number, success: boolean): void;
}
