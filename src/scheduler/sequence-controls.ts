import type { ConfigDataType, ModelConfig, SequenceControl } from '../config/index.js';
import { Errors } from '../errors.js';
import type { SequenceFlags } from '../inference/index.js';
import { createTensor, type Tensor } from '../tensor/index.js';

/** Builds one control tensor for a request (one row; shape [1, 1] when the model batches, else [1]). */
export type ControlBuilder = (flags: SequenceFlags) => Tensor;

const CORRID_TYPES: ReadonlySet<ConfigDataType> = new Set(['TYPE_UINT64', 'TYPE_INT64', 'TYPE_UINT32', 'TYPE_INT32', 'TYPE_STRING']);

/**
 * Compile `sequence_batching.control_input` once at load. Every problem is collected and reported
 * together, naming the model and the control input.
 */
export function compileControls(config: ModelConfig, model: string): ControlBuilder[] {
  const sb = config.sequence_batching;
  const shape = config.max_batch_size > 0 ? [1, 1] : [1];
  const problems: string[] = [];
  const out: ControlBuilder[] = [];
  for (const ci of sb?.control_input ?? []) {
    const where = `model '${model}': sequence_batching control_input '${ci.name}'`;
    if (ci.control.length !== 1) {
      problems.push(`${where} must have exactly one control, has ${ci.control.length}`);
      continue;
    }
    const c = ci.control[0]!;
    try {
      out.push(c.kind === 'CONTROL_SEQUENCE_CORRID' ? corrid(ci.name, c, shape, model) : flag(ci.name, c, shape));
    } catch (e) {
      problems.push(`${where}: ${(e as Error).message}`);
    }
  }
  if (problems.length) throw Errors.configInvalid(problems.join('\n'));
  return out;
}

function flag(name: string, c: SequenceControl, shape: number[]): ControlBuilder {
  const forms = [c.int32_false_true, c.fp32_false_true, c.bool_false_true].filter((f) => f !== undefined && f.length > 0);
  if (forms.length !== 1) throw Errors.configInvalid(`${c.kind} needs exactly one of int32_false_true, fp32_false_true, bool_false_true`);
  const make = (v: 0 | 1): Tensor => {
    if (c.int32_false_true?.length) return createTensor(name, 'INT32', shape, [pair(c.int32_false_true)[v]]);
    if (c.fp32_false_true?.length) return createTensor(name, 'FP32', shape, [pair(c.fp32_false_true)[v]]);
    return createTensor(name, 'BOOL', shape, [pair(c.bool_false_true!)[v]]);
  };
  // Both values are built once and shared by every request (backends never write their inputs).
  const off = make(0);
  const on = make(1);
  switch (c.kind) {
    case 'CONTROL_SEQUENCE_START': return (f) => (f.start ? on : off);
    case 'CONTROL_SEQUENCE_END': return (f) => (f.end ? on : off);
    // No padding rows are sent, so every row in a batch is ready.
    case 'CONTROL_SEQUENCE_READY': return () => on;
    default: throw Errors.configInvalid(`unknown control kind '${String(c.kind)}'`);
  }
}

function pair<T>(v: readonly T[]): readonly [T, T] {
  if (v.length !== 2) throw Errors.configInvalid(`the false/true list must have 2 values, has ${v.length}`);
  return [v[0]!, v[1]!];
}

function corrid(name: string, c: SequenceControl, shape: number[], model: string): ControlBuilder {
  const dt = c.data_type ?? 'TYPE_UINT64';
  if (!CORRID_TYPES.has(dt)) throw Errors.configInvalid(`CONTROL_SEQUENCE_CORRID data_type must be one of ${[...CORRID_TYPES].join(', ')}, got ${dt}`);
  // As Triton (infer_request.cc): a string ID goes only to a TYPE_STRING control, an integer ID
  // only to an integer one.
  if (dt === 'TYPE_STRING') {
    return (f) => {
      if (typeof f.id !== 'string') throw Errors.sequenceCorrIdType(model, name, 'UINT64', 'BYTES');
      return createTensor(name, 'BYTES', shape, [f.id]);
    };
  }
  const wire = dt.slice(5) as 'UINT64' | 'INT64' | 'UINT32' | 'INT32';
  const [lo, hi] = wire === 'UINT64' ? [0n, 2n ** 64n - 1n] : wire === 'INT64' ? [-(2n ** 63n), 2n ** 63n - 1n]
    : wire === 'UINT32' ? [0n, 2n ** 32n - 1n] : [-(2n ** 31n), 2n ** 31n - 1n];
  return (f) => {
    if (typeof f.id === 'string') throw Errors.sequenceCorrIdType(model, name, 'BYTES', wire);
    const id = f.id;
    if (id < lo || id > hi) throw Errors.sequenceCorrId(model, name, String(f.id), wire);
    return createTensor(name, wire, shape, wire.endsWith('64') ? [id] : [Number(id)]);
  };
}
