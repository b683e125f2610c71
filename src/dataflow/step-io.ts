/** How tensors cross a step's edge: found in a response by name, bridged across the batching divide. */
import type { BatchBridge } from '../pipeline/index.js';
import { renameTensor, shapeMatches, type Tensor } from '../tensor/index.js';

export function findOutput(outputs: readonly Tensor[], name: string): Tensor | undefined {
  for (const t of outputs) if (t.name === name) return t;
  return undefined;
}

/** Triton's batch-dim bridge (BatchBridge): a new shape over the same data, never a copy. */
export function bridged(t: Tensor, bridge: BatchBridge, name: string): Tensor {
  const shape = t.shape;
  if (bridge.mode === 'add') {
    if (shapeMatches(bridge.dims, shape)) return { name, datatype: t.datatype, shape: [1, ...shape], data: t.data };
  } else if (shape[0] === 1 && !shapeMatches(bridge.dims, shape)) {
    return { name, datatype: t.datatype, shape: shape.slice(1), data: t.data };
  }
  return renameTensor(t, name);
}
