/**
 * Tiny ONNX models generated at test time so that versions of one model compute different
 * results: `addConstModel(k)` is y = x + k over FP32 [batch, 4].
 */
import { createGraph } from '../../scripts/onnx/index.js';

const ADD_CONST_WIDTH = 4;

export function addConstModel(k: number): Uint8Array {
  return createGraph(`add_${k}`)
    .input('x', 'FP32', ['batch', ADD_CONST_WIDTH])
    .initializer('k', 'FP32', [1], [k])
    .node('Add', ['x', 'k'], ['y'])
    .output('y', 'FP32', ['batch', ADD_CONST_WIDTH])
    .encode();
}

export const ADD_CONST_CONFIG = (name: string, extra = '') => `
name: "${name}"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ ${ADD_CONST_WIDTH} ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ ${ADD_CONST_WIDTH} ] } ]
${extra}
`;
