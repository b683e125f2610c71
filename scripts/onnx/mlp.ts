import { createGraph } from './graph-builder.js';
import { seededFloats } from './seeded-random.js';

/** One dense layer: weight is row-major [inSize, outSize], so y = x @ weight + bias. */
export interface DenseLayer {
  readonly inSize: number;
  readonly outSize: number;
  readonly weight: Float32Array;
  readonly bias: Float32Array;
}

/** The default MLP shape used by tests and benchmarks (docs/PERFORMANCE.md, W3). */
export const MLP_SIZES = [64, 256, 256, 10] as const;

/** Deterministic weights (uniform, scaled by 1/sqrt(fan-in) so activations stay O(1)). */
export function mlpWeights(sizes: readonly number[] = MLP_SIZES, seed = 42): DenseLayer[] {
  const layers: DenseLayer[] = [];
  for (let i = 0; i + 1 < sizes.length; i++) {
    const inSize = sizes[i]!;
    const outSize = sizes[i + 1]!;
    const scale = 1 / Math.sqrt(inSize);
    layers.push({
      inSize, outSize,
      weight: seededFloats(seed * 1000 + i * 2, inSize * outSize, scale),
      bias: seededFloats(seed * 1000 + i * 2 + 1, outSize, scale),
    });
  }
  return layers;
}

/**
 * The MLP as ONNX: input `x` FP32 [batch, in] -> `y` FP32 [batch, out]; MatMul + Add per layer and
 * Relu between layers (none after the last).
 */
export function buildMlp(layers: readonly DenseLayer[] = mlpWeights(), name = 'mlp'): Uint8Array {
  const g = createGraph(name).input('x', 'FP32', ['batch', layers[0]!.inSize]);
  let cur = 'x';
  layers.forEach((l, i) => {
    g.initializer(`w${i}`, 'FP32', [l.inSize, l.outSize], l.weight)
      .initializer(`b${i}`, 'FP32', [l.outSize], l.bias)
      .node('MatMul', [cur, `w${i}`], [`mm${i}`])
      .node('Add', [`mm${i}`, `b${i}`], [i === layers.length - 1 ? 'y' : `pre${i}`]);
    if (i < layers.length - 1) g.node('Relu', [`pre${i}`], [`h${i}`]);
    cur = `h${i}`;
  });
  return g.output('y', 'FP32', ['batch', layers[layers.length - 1]!.outSize]).encode();
}

/** The same MLP computed in plain JS (double precision accumulation), rows of `x` in order. */
export function mlpForward(layers: readonly DenseLayer[], x: Float32Array, rows: number): Float64Array {
  let cur = Float64Array.from(x);
  layers.forEach((l, li) => {
    const out = new Float64Array(rows * l.outSize);
    for (let r = 0; r < rows; r++) {
      for (let o = 0; o < l.outSize; o++) {
        let s = l.bias[o]!;
        for (let k = 0; k < l.inSize; k++) s += cur[r * l.inSize + k]! * l.weight[k * l.outSize + o]!;
        out[r * l.outSize + o] = li < layers.length - 1 ? Math.max(0, s) : s;
      }
    }
    cur = out;
  });
  return cur;
}
