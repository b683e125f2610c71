import type { ModelConfig, SequenceControl } from '../../src/config/index.js';
import { formatShape, fromConfigType, type DataType } from '../../src/tensor/index.js';
import { formatRawDims, type IoSignature, type ModelSignature } from './model-signature.js';

/**
 * A graph tensor the sequence batcher feeds or captures that the config's `input`/`output` lists
 * do not name: control inputs, state inputs and state outputs. `dims` exclude the batch dim.
 */
interface ImplicitIo {
  readonly name: string;
  /** How messages name it: "sequence_batching control_input 'START'". */
  readonly label: string;
  /** undefined when the config's own validation already reports the datatype. */
  readonly datatype: DataType | undefined;
  readonly dims: readonly number[];
}

export interface SequenceIo {
  readonly inputs: readonly ImplicitIo[];
  readonly outputs: readonly ImplicitIo[];
}

/** The datatype the scheduler gives a control tensor (see src/scheduler/sequence-controls.ts). */
function controlType(c: SequenceControl | undefined): DataType | undefined {
  if (!c) return undefined;
  if (c.kind === 'CONTROL_SEQUENCE_CORRID') return fromConfigType(c.data_type ?? 'TYPE_UINT64');
  if (c.int32_false_true?.length) return 'INT32';
  if (c.fp32_false_true?.length) return 'FP32';
  if (c.bool_false_true?.length) return 'BOOL';
  return undefined;
}

/** What `sequence_batching` adds to the model's inputs and outputs. */
export function sequenceIo(config: ModelConfig): SequenceIo {
  const sb = config.sequence_batching;
  if (!sb) return { inputs: [], outputs: [] };
  const inputs: ImplicitIo[] = [];
  const outputs: ImplicitIo[] = [];
  for (const ci of sb.control_input) {
    // Control tensors hold one value per request: [1] unbatched, [batch, 1] batched.
    inputs.push({ name: ci.name, label: `sequence_batching control_input '${ci.name}'`, datatype: controlType(ci.control[0]), dims: [1] });
  }
  for (const s of sb.state) {
    const datatype = fromConfigType(s.data_type);
    inputs.push({ name: s.input_name, label: `sequence_batching state input_name '${s.input_name}'`, datatype, dims: s.dims });
    outputs.push({ name: s.output_name, label: `sequence_batching state output_name '${s.output_name}'`, datatype, dims: s.dims });
  }
  return { inputs, outputs };
}

function dimsAgree(own: readonly number[], batched: boolean, m: IoSignature): boolean {
  const full = batched ? [-1, ...own] : own;
  if (full.length !== m.dims.length) return false;
  // A -1 on either side is a variable dim: the model accepts any size, or the state may grow.
  return full.every((d, i) => (batched && i === 0) || d === -1 || m.dims[i] === -1 || d === m.dims[i]);
}

/** Check the implicit tensors against the graph; problems are collected, not thrown. */
export function checkSequenceIo(config: ModelConfig, sig: ModelSignature, problems: string[]): void {
  const batched = config.max_batch_size > 0;
  const io = sequenceIo(config);
  const check = (x: ImplicitIo, kind: 'input' | 'output', models: readonly IoSignature[]): void => {
    const m = models.find((g) => g.name === x.name);
    if (!m) {
      problems.push(`${x.label} is not an ${kind} of the model; model ${kind}s: ${models.map((g) => `'${g.name}'`).join(', ') || '(none)'}`);
      return;
    }
    if (x.datatype && m.datatype !== x.datatype) {
      problems.push(`${x.label}: the sequence batcher uses ${x.datatype} but the model ${kind} has ${m.datatype ?? m.ortType}`);
    }
    if (!dimsAgree(x.dims, batched, m)) {
      const full = batched ? [-1, ...x.dims] : x.dims;
      problems.push(`${x.label}: shape ${formatShape(full)}${batched ? ' (with the batch dim)' : ''} disagrees with the model shape ${formatRawDims(m)}`);
    }
  };
  for (const x of io.inputs) check(x, 'input', sig.inputs);
  for (const x of io.outputs) check(x, 'output', sig.outputs);
  for (const x of io.inputs) {
    if (config.input.some((c) => c.name === x.name)) problems.push(`${x.label} must not also be listed in the config's inputs (the server feeds it)`);
  }
}
