/**
 * Outputs leave a model in the config's `dims`, whatever the backend, as Triton's core does
 * (InferenceResponse::AddOutput reshapes every output whose config has `reshape`): a backend
 * produces the model's shape (the reshape), and the n-th -1 of `dims` takes the size at the n-th
 * -1 of the reshape. A new shape over the same data, never a copy.
 */
import type { ModelConfig } from '../config/index.js';
import { resolveReshape, shapeMatches, type Tensor } from '../tensor/index.js';

export type OutputShaper = (t: Tensor) => Tensor;

/** The shaper for `config`'s outputs, or undefined when no output has a reshape (no cost then). */
export function outputShaper(config: ModelConfig): OutputShaper | undefined {
  const plans = new Map<string, { dims: readonly number[]; from: readonly number[] }>();
  for (const o of config.output) if (o.reshape) plans.set(o.name, { dims: o.dims, from: o.reshape.shape });
  if (plans.size === 0) return undefined;
  const batched = config.max_batch_size > 0;
  return (t) => {
    const plan = plans.get(t.name);
    if (!plan || (batched && t.shape.length === 0)) return t;
    const shape = batched ? t.shape.slice(1) : t.shape;
    // A backend may already answer in `dims` (a script may use either shape): only a tensor in
    // the reshape's shape is reshaped, so an answer in `dims` is never reshaped twice.
    if (shapeMatches(plan.dims, shape) || !shapeMatches(plan.from, shape)) return t;
    const to = resolveReshape(plan.from, shape, plan.dims);
    if (!to) return t;
    return { name: t.name, datatype: t.datatype, shape: batched ? [t.shape[0]!, ...to] : to, data: t.data };
  };
}
