/**
 * An output whose config `dims` differ from the ONNX graph's declared shape (dims [1,1] over a
 * graph output of [1]) leaves in its `dims` when the element counts agree: a new shape over the
 * same data, never a copy. Outputs with `reshape` are the model layer's (src/model/output-shaper.ts,
 * as Triton's core does it for every backend), so they are left in the graph's shape here.
 */
import type { ModelConfig } from '../../src/config/index.js';
import { dimsCompatible, resolveReshape, shapeMatches, type Tensor } from '../../src/tensor/index.js';
import type { ModelSignature } from './model-signature.js';

/** The config shape (without the batch dim) for a model shape (without it), or undefined to keep. */
type OutputShaper = (shape: readonly number[]) => readonly number[] | undefined;

export type OutputShapers = ReadonlyMap<string, OutputShaper>;

/** Shapers for the outputs that need one; undefined when every output already has its config shape. */
export function outputShapers(config: ModelConfig, sig: ModelSignature): OutputShapers | undefined {
  const batched = config.max_batch_size > 0;
  // Batch outputs (ragged batching) have their own shapes, set per request.
  const own = new Set(config.batch_output.flatMap((b) => b.target_name));
  const shapers = new Map<string, OutputShaper>();
  for (const o of config.output) {
    if (own.has(o.name) || o.reshape) continue;
    const dims = o.dims;
    // checkConfig already holds the model's declared shape to the dims; only a shape it cannot
    // vouch for costs a check per run.
    const m = sig.outputs.find((x) => x.name === o.name);
    if (m && dimsCompatible(batched ? m.dims.slice(1) : m.dims, dims)) continue;
    shapers.set(o.name, (shape) => (shapeMatches(dims, shape) ? undefined : resolveReshape([], shape, dims)));
  }
  return shapers.size > 0 ? shapers : undefined;
}

/** `t` in its config shape; a batched tensor keeps its leading batch dim. */
export function toConfigShape(shapers: OutputShapers, batched: boolean, t: Tensor): Tensor {
  const shaper = shapers.get(t.name);
  if (!shaper || (batched && t.shape.length === 0)) return t;
  const to = shaper(batched ? t.shape.slice(1) : t.shape);
  if (!to) return t;
  return { name: t.name, datatype: t.datatype, shape: batched ? [t.shape[0]!, ...to] : [...to], data: t.data };
}
