import { lastValueFrom, toArray } from 'rxjs';
import type { InferenceRequest, InferenceResponse } from '../inference/index.js';
import type { Server } from './types.js';

/** Promise form of `server.infer` for callers that want the single (non-decoupled) response. */
export async function inferOnce(server: Pick<Server, 'infer'>, request: InferenceRequest): Promise<InferenceResponse> {
  const all = await lastValueFrom(server.infer(request).pipe(toArray()));
  const withOutputs = all.filter((r) => r.outputs.length > 0);
  return withOutputs[withOutputs.length - 1] ?? all[all.length - 1]!;
}
