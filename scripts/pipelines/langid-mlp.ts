/**
 * lande's 50-language identifier (toygrad MLP 620 -> 120 ReLU -> 50 softmax) as an ONNX graph:
 * FEATURES f32 [batch,620] -> Gemm -> Relu -> Gemm -> Softmax -> PROBABILITIES f32 [batch,50].
 * Weights are lande's trained ones, decoded from its shipped options file; nothing is retrained.
 */
import { encodeModel, floatTensor, node, valueInfo } from './onnx-graph.js';
import { readDenseLayers } from './toygrad-weights.js';

export const LANGID_INPUT = 'FEATURES';
export const LANGID_OUTPUT = 'PROBABILITIES';

export function buildLangidMlp(options: { layers: never[] }): Uint8Array {
  const dense = readDenseLayers(options);
  const [h, o] = dense;
  if (dense.length !== 2 || !h || !o) throw new Error(`lande network: expected 2 dense layers, found ${dense.length}`);
  return encodeModel({
    name: 'lande_t50',
    doc: 'lande t50 language identifier (MIT, github.com/fabiospampinato/lande), converted by scripts/pipelines/langid-mlp.ts',
    inputs: [valueInfo(LANGID_INPUT, 'FLOAT', ['batch', h.inputs])],
    outputs: [valueInfo(LANGID_OUTPUT, 'FLOAT', ['batch', o.outputs])],
    initializers: [
      floatTensor('w1', [h.outputs, h.inputs], h.weights),
      floatTensor('b1', [h.outputs], h.biases),
      floatTensor('w2', [o.outputs, o.inputs], o.weights),
      floatTensor('b2', [o.outputs], o.biases),
    ],
    nodes: [
      node('Gemm', [LANGID_INPUT, 'w1', 'b1'], ['hidden'], { transB: 1 }),
      node('Relu', ['hidden'], ['hidden_relu']),
      node('Gemm', ['hidden_relu', 'w2', 'b2'], ['logits'], { transB: 1 }),
      node('Softmax', ['logits'], [LANGID_OUTPUT], { axis: -1 }),
    ],
  });
}
