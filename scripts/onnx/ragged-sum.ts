import { createGraph } from './graph-builder.js';

/**
 * ragged_sum.onnx, a model for Triton's ragged batching: INPUT FP32 [-1] is the 1-D concatenation
 * of every request's elements, OFFSETS INT32 [-1] the batch input
 * BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO (N+1 values for N requests). SUM FP32 [N,1] is each
 * request's own sum: prefix sums of INPUT, read at OFFSETS[i+1] minus OFFSETS[i]. DOUBLED FP32 [-1]
 * is 2 * INPUT, for a BATCH_SCATTER_WITH_INPUT_SHAPE batch output.
 */
export function buildRaggedSum(): Uint8Array {
  return createGraph('ragged_sum')
    .input('INPUT', 'FP32', [-1]).input('OFFSETS', 'INT32', [-1])
    .initializer('zero', 'FP32', [1], [0]).initializer('two', 'FP32', [1], [2])
    .initializer('axis0', 'INT64', [], [0]).initializer('axes1', 'INT64', [1], [1])
    .initializer('one', 'INT64', [1], [1]).initializer('minus_one', 'INT64', [1], [-1])
    .initializer('first', 'INT64', [1], [0]).initializer('last', 'INT64', [1], [2 ** 31 - 1])
    .node('CumSum', ['INPUT', 'axis0'], ['running'])
    .node('Concat', ['zero', 'running'], ['prefix'], { axis: 0 })
    .node('Slice', ['OFFSETS', 'one', 'last'], ['ends'])
    .node('Slice', ['OFFSETS', 'first', 'minus_one'], ['starts'])
    .node('Gather', ['prefix', 'ends'], ['upto_end'], { axis: 0 })
    .node('Gather', ['prefix', 'starts'], ['upto_start'], { axis: 0 })
    .node('Sub', ['upto_end', 'upto_start'], ['sums'])
    .node('Unsqueeze', ['sums', 'axes1'], ['SUM'])
    .node('Mul', ['INPUT', 'two'], ['DOUBLED'])
    .output('SUM', 'FP32', ['batch', 1]).output('DOUBLED', 'FP32', [-1])
    .encode();
}
