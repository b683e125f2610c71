import { createHash } from 'node:crypto';
import { isReservedParameter, type InferenceRequest } from '../inference/index.js';
import { tensorToBytes, type Tensor, type TypedArray } from '../tensor/index.js';

/**
 * The cache key of a request: SHA-256 over the model, its version, every input (name, datatype,
 * shape, bytes; sorted by name as Triton's TritonCache::Hash sorts them) and what else changes
 * the response: the request's own parameters (Triton's reserved ones are not, they steer
 * scheduling) and the requested outputs in order with their classification counts. Triton hashes
 * names and bytes only, into 64 bits; the datatype and shape are added because two requests with
 * the same bytes in another shape are different requests, and 256 bits make a collision (a wrong
 * answer served from the cache) beyond reach. SHA-256 runs on the CPU's SHA extensions in
 * node:crypto; its cost per MB is measured by `npm run bench cache`.
 */
export function requestKey(model: string, version: string, inputs: readonly Tensor[], request: Pick<InferenceRequest, 'parameters' | 'outputs'>): string {
  const sorted = [...inputs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const params: [string, string, string][] = [];
  if (request.parameters) {
    for (const k of Object.keys(request.parameters).sort()) {
      if (isReservedParameter(k)) continue;
      const v = request.parameters[k]!;
      params.push([k, typeof v, String(v)]);
    }
  }
  const outputs = request.outputs?.map((o) => [o.name, o.parameters?.classification === undefined ? null : String(o.parameters.classification)]) ?? null;
  // The header fixes every length, so the bytes that follow it cannot be read two ways.
  const header = JSON.stringify([model, version, sorted.map((t) => [t.name, t.datatype, t.shape]), params, outputs]);
  const h = createHash('sha256').update(header);
  for (const t of sorted) {
    if (t.datatype === 'BYTES') h.update(tensorToBytes(t));
    else {
      const d = t.data as TypedArray;
      h.update(new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
    }
  }
  return h.digest('base64url');
}
