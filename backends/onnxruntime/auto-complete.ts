import { normalizeConfig, type ConfigDataType, type ModelConfig, type ModelInput, type ModelOutput } from '../../src/config/index.js';
import { Errors } from '../../src/errors.js';
import { formatShape, fromConfigType, toConfigType } from '../../src/tensor/index.js';
import { constantInputNames } from './constant-inputs.js';
import { formatRawDims, type IoSignature, type ModelSignature } from './model-signature.js';
import { batchInputNames, checkRaggedIo, raggedPlanOf } from './ragged-batch.js';
import { checkSequenceIo, sequenceIo } from './sequence-io.js';

/** Triton's default max_batch_size when auto-complete finds a batchable model. */
const DEFAULT_MAX_BATCH_SIZE = 4;

type Io = ModelInput | ModelOutput;

/** Every input and output has a variable first dimension, so requests can stack along it. */
function canBatch(sig: ModelSignature): boolean {
  return [...sig.inputs, ...sig.outputs].every((io) => io.dims.length > 0 && io.dims[0] === -1);
}

function describe(io: IoSignature): string {
  return `'${io.name}' ${io.datatype ?? io.ortType} ${formatRawDims(io)}`;
}

/**
 * Triton's rule for max_batch_size when the config leaves it 0: batchable when every model tensor
 * has a variable first dim, unless the config already spelled out dims of the model's full rank
 * (which says "this model does not batch").
 */
function pickMaxBatch(config: ModelConfig, sig: ModelSignature): number {
  if (config.max_batch_size > 0) return config.max_batch_size;
  if (!canBatch(sig)) return 0;
  const given: Array<[Io, IoSignature | undefined]> = [
    ...config.input.map((c) => [c, sig.inputs.find((m) => m.name === c.name)] as [Io, IoSignature | undefined]),
    ...config.output.map((c) => [c, sig.outputs.find((m) => m.name === c.name)] as [Io, IoSignature | undefined]),
  ];
  const fullRank = given.some(([c, m]) => m && (c.reshape?.shape ?? c.dims).length === m.dims.length);
  return fullRank ? 0 : DEFAULT_MAX_BATCH_SIZE;
}

function fromModel(model: string, io: IoSignature, batched: boolean): { name: string; data_type: ConfigDataType; dims: number[] } {
  if (!io.datatype) {
    throw Errors.modelLoadFailed(model, `model tensor ${describe(io)} has type ${io.ortType}, which onnxruntime-node cannot exchange`);
  }
  return { name: io.name, data_type: toConfigType(io.datatype) as ConfigDataType, dims: batched ? io.dims.slice(1) : [...io.dims] };
}

/** Graph inputs the server feeds itself (control, state, constant) and state outputs it captures. */
function implicitNames(config: ModelConfig): { inputs: Set<string>; outputs: Set<string> } {
  const seq = sequenceIo(config);
  return {
    inputs: new Set([...seq.inputs.map((x) => x.name), ...constantInputNames(config), ...batchInputNames(config)]),
    outputs: new Set(seq.outputs.map((x) => x.name)),
  };
}

/**
 * Fill what the config leaves out from the ONNX graph (strict config off): inputs, outputs,
 * datatypes, dims and max_batch_size; then check the result against the graph. Tensors the server
 * feeds or captures itself (sequence control and state tensors, constant inputs) are left out of
 * `input`/`output`, as Triton does: clients never send them.
 */
export function completeConfig(config: ModelConfig, sig: ModelSignature): ModelConfig {
  const maxBatch = pickMaxBatch(config, sig);
  const batched = maxBatch > 0;
  const implicit = implicitNames(config);
  const out: ModelConfig = {
    ...config,
    platform: config.platform || 'onnxruntime_onnx',
    backend: config.backend || 'onnxruntime',
    max_batch_size: maxBatch,
    input: config.input.length > 0 ? config.input
      : sig.inputs.filter((io) => !implicit.inputs.has(io.name)).map((io) => fromModel(config.name, io, batched)),
    output: config.output.length > 0 ? config.output
      : sig.outputs.filter((io) => !implicit.outputs.has(io.name)).map((io) => fromModel(config.name, io, batched)),
    // Triton's core fills the platform's file name in (AutoCompleteBackendFields), so the config
    // served back says which file was loaded.
    default_model_filename: config.default_model_filename || 'model.onnx',
  };
  // Triton's onnxruntime backend turns the dynamic batcher on when it picked max_batch_size
  // itself and the config names no scheduler; the core then prefers batches of max_batch_size.
  if (config.max_batch_size === 0 && maxBatch > 1 && !config.dynamic_batching && !config.sequence_batching) {
    out.dynamic_batching = normalizeConfig({ max_batch_size: maxBatch, dynamic_batching: {} }, { name: config.name }).dynamic_batching!;
  }
  checkConfig(out, sig);
  return out;
}

function checkIo(kind: 'input' | 'output', c: Io, models: readonly IoSignature[], batched: boolean, problems: string[]): void {
  const m = models.find((x) => x.name === c.name);
  if (!m) {
    problems.push(`config ${kind} '${c.name}' is not an ${kind} of the model; model ${kind}s: ${models.map(describe).join(', ') || '(none)'}`);
    return;
  }
  const dt = fromConfigType(c.data_type);
  if (dt !== m.datatype) {
    problems.push(`${kind} '${c.name}': config data_type ${c.data_type} but the model has ${m.datatype ? toConfigType(m.datatype) : m.ortType}`);
  }
  const own = c.reshape?.shape ?? c.dims;
  const full = batched ? [-1, ...own] : own;
  const what = c.reshape ? 'reshape' : 'dims';
  const batchNote = batched ? ` (with the batch dim: ${formatShape(full)})` : '';
  if (full.length !== m.dims.length) {
    problems.push(`${kind} '${c.name}': config ${what} ${formatShape(own)}${batchNote} has rank ${full.length} but the model shape ${formatRawDims(m)} has rank ${m.dims.length}`);
    return;
  }
  for (let i = batched ? 1 : 0; i < full.length; i++) {
    if (m.dims[i] !== -1 && full[i] !== m.dims[i]) {
      problems.push(`${kind} '${c.name}': config ${what} ${formatShape(own)}${batchNote} disagree with the model shape ${formatRawDims(m)} at dimension ${i} (config ${full[i]}, model ${m.dims[i]})`);
      return;
    }
  }
}

/** Check a (complete) config against the graph; every problem is reported at once. */
export function checkConfig(config: ModelConfig, sig: ModelSignature): void {
  const batched = config.max_batch_size > 0;
  const problems: string[] = [];
  const implicit = implicitNames(config);
  const constants = new Set(constantInputNames(config));
  const ragged = raggedPlanOf(config);
  if (batched) {
    // A constant input is fed once per run, not per request, and a batch input once per batch,
    // so neither needs a batch dim.
    const fed = new Set([...constants, ...batchInputNames(config)]);
    for (const m of [...sig.inputs.filter((i) => !fed.has(i.name)), ...sig.outputs]) {
      if (m.dims.length === 0 || m.dims[0] !== -1) {
        problems.push(`max_batch_size is ${config.max_batch_size} but model tensor ${describe(m)} has no variable first dimension to batch along; set max_batch_size: 0`);
      }
    }
  }
  // Ragged inputs and batch outputs have their own shape rules (ragged-batch.ts).
  for (const c of config.input) if (!ragged?.ragged.has(c.name)) checkIo('input', c, sig.inputs, batched, problems);
  for (const c of config.output) if (!ragged?.batchOutputs.has(c.name)) checkIo('output', c, sig.outputs, batched, problems);
  if (ragged) checkRaggedIo(config, sig, ragged, problems);
  checkSequenceIo(config, sig, problems);
  for (const m of sig.inputs) {
    if (!config.input.some((c) => c.name === m.name) && !implicit.inputs.has(m.name)) {
      problems.push(`model input ${describe(m)} is missing from the config`);
    }
  }
  if (problems.length > 0) throw Errors.modelLoadFailed(config.name, problems.join('; '));
}
