import type { ModelConfig } from '../../src/config/index.js';
import { Errors } from '../../src/errors.js';
import { STORAGE, elementCount, type DataType } from '../../src/tensor/index.js';
import { formatRawDims, type ModelSignature } from './model-signature.js';
import { ortTypeOf, type PlainTensor } from './ort-tensor.js';

/**
 * Parameter `constant_input.<graph input>`: a value the backend feeds to that graph input on every
 * run, so it is not a client input. It exists for inputs a Triton config cannot express, above all
 * rank-0 (scalar) inputs of models that do not batch (Triton rejects an empty reshape when
 * max_batch_size is 0), such as Silero VAD's sample rate `sr`. The datatype and shape come from
 * the graph, which must give every dimension; the value lists the elements, comma-separated.
 */
const CONSTANT_INPUT_PREFIX = 'constant_input.';

export function constantInputNames(config: ModelConfig): string[] {
  return Object.keys(config.parameters).filter((k) => k.startsWith(CONSTANT_INPUT_PREFIX)).map((k) => k.slice(CONSTANT_INPUT_PREFIX.length));
}

function parseValue(dt: DataType, text: string): number | bigint {
  if (dt === 'INT64' || dt === 'UINT64') return BigInt(text);
  if (dt === 'BOOL') {
    if (/^(1|true)$/i.test(text)) return 1;
    if (/^(0|false)$/i.test(text)) return 0;
    throw Errors.configInvalid(`'${text}' is not a BOOL (true/false/1/0)`);
  }
  const n = Number(text);
  if (text === '' || !Number.isFinite(n)) throw Errors.configInvalid(`'${text}' is not a number`);
  return n;
}

/** The constant feeds, built and checked once at load; every problem is reported together. */
export function constantInputs(config: ModelConfig, sig: ModelSignature): PlainTensor[] {
  const problems: string[] = [];
  const out: PlainTensor[] = [];
  for (const name of constantInputNames(config)) {
    const where = `parameter '${CONSTANT_INPUT_PREFIX}${name}'`;
    const m = sig.inputs.find((i) => i.name === name);
    if (!m) {
      problems.push(`${where} names no model input; model inputs: ${sig.inputs.map((i) => `'${i.name}'`).join(', ')}`);
      continue;
    }
    if (config.input.some((c) => c.name === name)) {
      problems.push(`${where}: '${name}' is also a config input; a constant input is fed by the server, not by clients`);
      continue;
    }
    const dt = m.datatype;
    if (!dt || dt === 'BYTES' || dt === 'FP16' || dt === 'BF16') {
      problems.push(`${where}: model input '${name}' has type ${dt ?? m.ortType}, which a constant input does not support (numbers and BOOL only)`);
      continue;
    }
    if (m.dims.some((d) => d < 0)) {
      problems.push(`${where}: model input '${name}' has shape ${formatRawDims(m)}; a constant input needs every dimension fixed`);
      continue;
    }
    const text = configValue(config, name).trim();
    const parts = text === '' ? [] : text.split(/[\s,]+/);
    const count = elementCount(m.dims);
    if (parts.length !== count) {
      problems.push(`${where}: model input '${name}' ${formatRawDims(m)} needs ${count} value(s), got ${parts.length} ('${text}')`);
      continue;
    }
    try {
      const values = parts.map((p) => parseValue(dt, p));
      const Ctor = STORAGE[dt];
      const data = new Ctor(count);
      values.forEach((v, i) => { (data as unknown as (number | bigint)[])[i] = v; });
      out.push({ name, type: ortTypeOf(dt)!, dims: [...m.dims], data });
    } catch (e) {
      problems.push(`${where}: ${e instanceof Error ? e.message : String(e)} for model input '${name}' of type ${dt}`);
    }
  }
  if (problems.length) throw Errors.modelLoadFailed(config.name, problems.join('; '));
  return out;
}

function configValue(config: ModelConfig, name: string): string {
  return config.parameters[`${CONSTANT_INPUT_PREFIX}${name}`]?.string_value ?? '';
}
