import type { BackendRequest } from '../../src/backend/index.js';
import type { ModelConfig } from '../../src/config/index.js';
import { Errors } from '../../src/errors.js';
import { concatBatch, elementCount, formatShape, fromConfigType, toConfigType, type Tensor, type TypedArray } from '../../src/tensor/index.js';
import { formatRawDims, type ModelSignature } from './model-signature.js';

type BatchInputSpec = ModelConfig['batch_input'][number];

/**
 * Triton's ragged batching for one model, resolved once at load (docs/user_guide/ragged_batching.md):
 * ragged inputs reach the model as the 1-D concatenation of every request's elements, batch
 * inputs describe how the batch was formed, and batch outputs are scattered back per request.
 */
export interface RaggedPlan {
  /** Inputs with `allow_ragged_batch`. */
  readonly ragged: ReadonlySet<string>;
  readonly batchInputs: readonly BatchInputSpec[];
  /** Output name -> its source input and per-request shape (-1 dims taken from that input). */
  readonly batchOutputs: ReadonlyMap<string, { readonly source: string; readonly shape: readonly number[] }>;
}

/** The plan, or undefined when the config uses none of it (the common case stays untouched). */
export function raggedPlanOf(config: ModelConfig): RaggedPlan | undefined {
  const ragged = new Set(config.input.filter((i) => i.allow_ragged_batch).map((i) => i.name));
  if (ragged.size === 0 && config.batch_input.length === 0 && config.batch_output.length === 0) return undefined;
  const batchOutputs = new Map<string, { source: string; shape: number[] }>();
  for (const b of config.batch_output) {
    for (const name of b.target_name) {
      const out = config.output.find((o) => o.name === name);
      // As Triton's backend library: the batch dimension, then the output's config dims.
      const shape = [...(config.max_batch_size > 0 ? [-1] : []), ...(out?.dims ?? [-1])];
      batchOutputs.set(name, { source: b.source_input[0] ?? '', shape });
    }
  }
  return { ragged, batchInputs: config.batch_input, batchOutputs };
}

/** Model inputs the server feeds from batch_input (never sent by clients). */
export function batchInputNames(config: ModelConfig): string[] {
  return config.batch_input.flatMap((b) => b.target_name);
}

/**
 * Load-time checks Triton's onnxruntime backend makes: a ragged input must be a model input of
 * shape [-1]; batch inputs and batch outputs must exist with the config's datatype (their dims are
 * not compared: a batch output's shape follows its source input).
 */
export function checkRaggedIo(config: ModelConfig, sig: ModelSignature, plan: RaggedPlan, problems: string[]): void {
  for (const c of config.input) {
    if (!plan.ragged.has(c.name)) continue;
    const m = sig.inputs.find((x) => x.name === c.name);
    if (!m) { problems.push(`config input '${c.name}' is not an input of the model`); continue; }
    if (m.datatype !== fromConfigType(c.data_type)) problems.push(`input '${c.name}': config data_type ${c.data_type} but the model has ${m.datatype ? toConfigType(m.datatype) : m.ortType}`);
    if (m.dims.length !== 1 || m.dims[0] !== -1) {
      problems.push(`ragged input '${c.name}' (allow_ragged_batch) needs the model shape [-1], the 1-D concatenation of the batch's elements, but the model has ${formatRawDims(m)}`);
    }
  }
  for (const b of plan.batchInputs) {
    for (const name of b.target_name) {
      const m = sig.inputs.find((x) => x.name === name);
      if (!m) problems.push(`batch_input ${b.kind} target '${name}' is not an input of the model; model inputs: ${sig.inputs.map((x) => `'${x.name}'`).join(', ')}`);
      else if (m.datatype !== fromConfigType(b.data_type)) problems.push(`batch_input target '${name}': config data_type ${b.data_type} but the model has ${m.datatype ? toConfigType(m.datatype) : m.ortType}`);
    }
  }
  for (const name of plan.batchOutputs.keys()) {
    const c = config.output.find((o) => o.name === name);
    const m = sig.outputs.find((x) => x.name === name);
    if (!c) continue; // validate-config reports a target that is not a config output
    if (!m) { problems.push(`batch_output target '${name}' is not an output of the model; model outputs: ${sig.outputs.map((x) => `'${x.name}'`).join(', ')}`); continue; }
    if (m.datatype !== fromConfigType(c.data_type)) problems.push(`output '${name}': config data_type ${c.data_type} but the model has ${m.datatype ? toConfigType(m.datatype) : m.ortType}`);
  }
}

/** A ragged input of the batch: every request's elements, flattened and concatenated, shape [total]. */
export function raggedFeed(name: string, parts: readonly Tensor[]): Tensor {
  const flat = parts.map((t) => ({ ...t, shape: [elementCount(t.shape)] }));
  return concatBatch(flat, name);
}

function sourceShapes(model: string, source: string, group: readonly BackendRequest[]): (readonly number[])[] {
  return group.map((r) => {
    const t = r.request.inputs.find((x) => x.name === source);
    if (!t) throw Errors.backendFailed(model, `batch input/output source '${source}' is missing from a request of the batch`);
    return t.shape;
  });
}

/**
 * The value of one batch input for the batch, as Triton's backend library computes it
 * (BackendInputCollector::BatchInputShape and ProcessBatchInput). Element counts include the
 * batch dimension; item shapes leave it out and repeat once per row.
 */
export function batchInputFeed(model: string, spec: BatchInputSpec, target: string, group: readonly BackendRequest[]): Tensor {
  const shapes = sourceShapes(model, spec.source_input[0] ?? '', group);
  const counts = shapes.map((s) => elementCount(s));
  let values: number[];
  let shape: number[];
  switch (spec.kind) {
    case 'BATCH_ELEMENT_COUNT':
      values = counts;
      shape = [counts.length];
      break;
    case 'BATCH_ACCUMULATED_ELEMENT_COUNT':
    case 'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO': {
      let acc = 0;
      values = counts.map((n) => (acc += n));
      if (spec.kind === 'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO') values.unshift(0);
      shape = [values.length];
      break;
    }
    case 'BATCH_MAX_ELEMENT_COUNT_AS_SHAPE': {
      // Only the shape carries information; Triton leaves the data uninitialised, here it is zero.
      const max = Math.max(0, ...counts);
      values = new Array<number>(max).fill(0);
      shape = [max];
      break;
    }
    case 'BATCH_ITEM_SHAPE':
    case 'BATCH_ITEM_SHAPE_FLATTEN': {
      values = [];
      let rows = 0;
      const rank = Math.max(0, (shapes[0]?.length ?? 1) - 1);
      for (const s of shapes) {
        if (s.length - 1 !== rank) throw Errors.backendFailed(model, `batch input '${target}' (${spec.kind}): requests of the batch give '${spec.source_input[0]}' shapes of different ranks (${formatShape(s)})`);
        for (let r = 0; r < (s[0] ?? 1); r++) values.push(...s.slice(1));
        rows += s[0] ?? 1;
      }
      shape = spec.kind === 'BATCH_ITEM_SHAPE' ? [rows, rank] : [rows * rank];
      break;
    }
  }
  const data: TypedArray = spec.data_type === 'TYPE_FP32' ? Float32Array.from(values) : Int32Array.from(values);
  return { name: target, datatype: spec.data_type === 'TYPE_FP32' ? 'FP32' : 'INT32', shape, data };
}

/**
 * Split each batch output into one tensor per request: the output's config shape with every -1
 * taken from the request's source input at the same dimension, elements in request order.
 */
export function scatterBatchOutputs(model: string, plan: RaggedPlan, outputs: readonly Tensor[], group: readonly BackendRequest[]): Tensor[][] {
  const per: Tensor[][] = group.map(() => []);
  for (const o of outputs) {
    const spec = plan.batchOutputs.get(o.name);
    if (!spec) continue;
    const shapes = sourceShapes(model, spec.source, group);
    const total = elementCount(o.shape);
    let offset = 0;
    shapes.forEach((src, k) => {
      const shape = spec.shape.map((d, i) => (d === -1 ? (src[i] ?? 1) : d));
      const n = elementCount(shape);
      if (offset + n > total) {
        throw Errors.backendFailed(model, `batch output '${o.name}' has ${total} elements, too few to scatter ${formatShape(shape)} to request ${k + 1} of ${group.length}`);
      }
      const data = o.datatype === 'BYTES' ? (o.data as Uint8Array[]).slice(offset, offset + n) : (o.data as TypedArray).subarray(offset, offset + n) as TypedArray;
      per[k]!.push({ name: o.name, datatype: o.datatype, shape, data });
      offset += n;
    });
  }
  return per;
}
