/**
 * Config texts that several end-to-end tests serve. `simple` runs build/models/simple.onnx
 * (OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1 over INT32 [batch, 16]); `echo` is the
 * identity backend over INT32 [batch, -1].
 */

/** `extra` is appended to the config; `out0` goes inside OUTPUT0's braces (e.g. a label file). */
export const simpleConfig = (extra = '', out0 = '') => `
name: "simple"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] ${out0} }, { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] } ]
${extra}
`;

export const ECHO_CONFIG = `
name: "echo"
backend: "identity"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]
`;

/** A sequence-batching identity model (INT32 [batch, 1]) named "seq", for sequence ID checks. */
export const SEQ_CONFIG = [
  'name: "seq"', 'backend: "identity"', 'max_batch_size: 4',
  'input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  'output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  'sequence_batching { max_sequence_idle_microseconds: 5000000 }', '',
].join('\n');

/** `chain`: SUM = echo(simple.OUTPUT0) = A + B; simple's OUTPUT1 goes to `d`, which nothing reads (a load warning). */
export const CHAIN_CONFIG = `
name: "chain"
platform: "ensemble"
max_batch_size: 8
input [ { name: "A" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "B" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "SUM" data_type: TYPE_INT32 dims: [ 16 ] } ]
ensemble_scheduling {
  step [
    { model_name: "simple" model_version: -1 input_map { key: "INPUT0" value: "A" } input_map { key: "INPUT1" value: "B" }
      output_map { key: "OUTPUT0" value: "s" } output_map { key: "OUTPUT1" value: "d" } },
    { model_name: "echo" model_version: -1 input_map { key: "IN" value: "s" } output_map { key: "OUT" value: "SUM" } }
  ]
}
`;

export const int32s = (n: number, f: (i: number) => number) => Int32Array.from({ length: n }, (_, i) => f(i));
