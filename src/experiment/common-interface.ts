import type { ModelConfig, ModelInput, ModelOutput } from '../config/index.js';

/** What clients see of a model, and what every variant of an experiment must agree on. */
export interface ModelInterface {
  readonly max_batch_size: number;
  readonly decoupled: boolean;
  readonly input: readonly ModelInput[];
  readonly output: readonly ModelOutput[];
}

/**
 * A model's interface as clients see it: `reshape` and `label_filename` are the model's own
 * business (it reshapes and classifies before answering), so they are left out.
 */
export function interfaceOf(config: ModelConfig): ModelInterface {
  return {
    max_batch_size: config.max_batch_size,
    decoupled: config.model_transaction_policy.decoupled,
    input: config.input.map(({ reshape: _r, ...t }) => t),
    output: config.output.map(({ reshape: _r, label_filename: _l, ...t }) => ({ ...t, label_filename: '' })),
  };
}

const shape = (t: { data_type: string; dims: readonly number[] }) => `${t.data_type} [${t.dims.join(', ')}]`;

/**
 * How `b` differs from `a`, one phrase per difference naming the tensor ("input 'X' is TYPE_INT32
 * [1], but <other> has TYPE_FP32 [1]"); `other` names `a` in the phrases. Batch sizes may differ
 * (the experiment takes the smallest); batching or not may not.
 */
export function interfaceDifferences(a: ModelInterface, b: ModelInterface, other: string): string[] {
  const out: string[] = [];
  if (a.decoupled !== b.decoupled) out.push(`it is ${b.decoupled ? '' : 'not '}decoupled, but ${other} is ${a.decoupled ? '' : 'not '}decoupled`);
  if ((a.max_batch_size > 0) !== (b.max_batch_size > 0)) {
    out.push(`it has max_batch_size ${b.max_batch_size}, but ${other} has ${a.max_batch_size} (both must batch, or neither)`);
  }
  tensors('input', a.input, b.input, other, out);
  tensors('output', a.output, b.output, other, out);
  return out;
}

function tensors(kind: string, a: readonly (ModelInput | ModelOutput)[], b: readonly (ModelInput | ModelOutput)[], other: string, out: string[]): void {
  const theirs = new Map(a.map((t) => [t.name, t]));
  const ours = new Set(b.map((t) => t.name));
  for (const t of b) {
    const o = theirs.get(t.name);
    if (!o) out.push(`${kind} '${t.name}' is not an ${kind} of ${other}`);
    else if (o.data_type !== t.data_type || o.dims.join(',') !== t.dims.join(',')) out.push(`${kind} '${t.name}' is ${shape(t)}, but ${other} has ${shape(o)}`);
    else if (Boolean(o.optional) !== Boolean(t.optional)) out.push(`${kind} '${t.name}' is ${t.optional ? '' : 'not '}optional, but ${other}'s is ${o.optional ? '' : 'not '}optional`);
  }
  for (const t of a) if (!ours.has(t.name)) out.push(`it has no ${kind} '${t.name}', which ${other} has`);
}

/**
 * What a mirror lacks to take every request the variants take: each input (same type and dims),
 * room for their batches, and no required input of its own that the requests do not carry.
 */
export function mirrorDifferences(iface: ModelInterface, mirror: ModelInterface): string[] {
  const out: string[] = [];
  if ((iface.max_batch_size > 0) !== (mirror.max_batch_size > 0) || mirror.max_batch_size < iface.max_batch_size) {
    out.push(`it has max_batch_size ${mirror.max_batch_size}, but the variants take max_batch_size ${iface.max_batch_size}`);
  }
  const given = new Map(iface.input.map((t) => [t.name, t]));
  for (const t of mirror.input) {
    const o = given.get(t.name);
    if (!o && !t.optional) out.push(`it requires input '${t.name}', which the variants do not take`);
    else if (o && (o.data_type !== t.data_type || o.dims.join(',') !== t.dims.join(','))) out.push(`input '${t.name}' is ${shape(t)}, but the variants take ${shape(o)}`);
  }
  const known = new Set(mirror.input.map((t) => t.name));
  for (const t of iface.input) if (!known.has(t.name)) out.push(`it has no input '${t.name}', which the variants take`);
  return out;
}
