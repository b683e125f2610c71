/** Checks of inputs, outputs and batch inputs/outputs (Triton's ValidateIOShape and friends). */
import type { ConfigReporter } from './config-reporter.js';
import { label } from './config-reporter.js';
import type { ModelInput, ModelOutput } from './model-config.js';

export function validateIo(r: ConfigReporter): void {
  const c = r.config;
  tensors(r, 'input', c.input);
  tensors(r, 'output', c.output);
  const inputs = new Set(c.input.map((i) => i.name));
  const outputs = new Set(c.output.map((o) => o.name));
  c.batch_input.forEach((b, i) => {
    const at = `batch_input[${i}]`;
    if (b.source_input.length !== 1) r.error(`${at}.source_input`, `${at}: batch input kind ${b.kind} expects 1 source_input, got ${b.source_input.length}`);
    if (b.data_type !== 'TYPE_INT32' && b.data_type !== 'TYPE_FP32') r.error(`${at}.data_type`, `${at}: data_type must be TYPE_INT32 or TYPE_FP32, got ${b.data_type}`);
    b.source_input.forEach((s, k) => {
      if (!inputs.has(s)) r.error(`${at}.source_input[${k}]`, `${at}: unknown source_input '${s}' (not an input of the model)`);
    });
  });
  c.batch_output.forEach((b, i) => {
    const at = `batch_output[${i}]`;
    if (b.source_input.length !== 1) r.error(`${at}.source_input`, `${at}: batch output kind ${b.kind} expects 1 source_input, got ${b.source_input.length}`);
    b.source_input.forEach((s, k) => {
      if (!inputs.has(s)) r.error(`${at}.source_input[${k}]`, `${at}: unknown source_input '${s}' (not an input of the model)`);
    });
    b.target_name.forEach((t, k) => {
      if (!outputs.has(t)) r.error(`${at}.target_name[${k}]`, `${at}: unknown target_name '${t}' (not an output of the model)`);
    });
  });
}

function tensors(r: ConfigReporter, kind: 'input' | 'output', list: readonly (ModelInput | ModelOutput)[]): void {
  const mbs = r.config.max_batch_size;
  const seen = new Map<string, number>();
  list.forEach((io, i) => {
    const at = `${kind}[${i}]`;
    const who = label(at, io.name);
    if (!io.name) r.error(r.has(`${at}.name`) ? `${at}.name` : at, `${at}: must specify 'name'`);
    else if (seen.has(io.name)) r.error(`${at}.name`, `${who}: duplicate ${kind} name (also ${kind}[${seen.get(io.name)}])`);
    else seen.set(io.name, i);
    if (io.data_type === 'TYPE_INVALID') {
      r.error(r.has(`${at}.data_type`) ? `${at}.data_type` : at,
        r.has(`${at}.data_type`) ? `${who}: data_type must not be TYPE_INVALID` : `${who}: must specify 'data_type'`);
    }
    if (io.dims.length === 0) {
      r.error(r.has(`${at}.dims`) ? `${at}.dims` : at, mbs === 0
        ? `${who}: dims must not be empty when max_batch_size is 0`
        : `${who}: dims must not be empty; for a tensor that is only the batch dimension use dims: [1] with reshape: { shape: [] }`);
    }
    io.dims.forEach((d, k) => {
      if (d < 1 && d !== -1) r.error(`${at}.dims[${k}]`, `${who}: dims[${k}] is ${d}; each dimension must be >= 1, or -1 for a variable-size dimension`);
    });
    if ('format' in io && io.format && io.format !== 'FORMAT_NONE' && io.dims.length !== 3) {
      r.error(`${at}.format`, `${who}: format ${io.format} requires 3 dims (without the batch dimension), got ${io.dims.length}`);
    }
    if (io.reshape) reshape(r, at, who, io.dims, io.reshape.shape, mbs);
  });
}

function reshape(r: ConfigReporter, at: string, who: string, dims: number[], shape: number[], mbs: number): void {
  const path = `${at}.reshape`;
  if (shape.length === 0 && mbs === 0) {
    r.error(path, `${who}: reshape must not be empty for a model with max_batch_size 0 (scalar tensors are not supported)`);
    return;
  }
  const bad = shape.findIndex((d) => d < 1 && d !== -1);
  if (bad >= 0) {
    r.error(`${path}.shape[${bad}]`, `${who}: reshape dimension ${shape[bad]} is invalid; each must be >= 1, or -1 for a variable-size dimension`);
    return;
  }
  if (dims.some((d) => d < 1 && d !== -1)) return;
  const a = chunks(dims);
  const b = chunks(shape);
  // An empty reshape stands for a tensor of one element (dims [1] -> shape []).
  if (shape.length === 0) {
    if (a.length !== 1 || a[0] !== 1) r.error(path, `${who}: an empty reshape needs dims with exactly 1 element, got dims [${dims.join(', ')}]`);
    return;
  }
  if (a.length !== b.length || a.some((n, k) => n !== b[k])) {
    r.error(path, a.length === 1 && b.length === 1
      ? `${who}: reshape [${shape.join(', ')}] has ${b[0]} elements but dims [${dims.join(', ')}] have ${a[0]}`
      : `${who}: reshape [${shape.join(', ')}] is incompatible with dims [${dims.join(', ')}] (element counts between -1 dimensions must match)`);
  }
}

/** Element counts of the runs between variable-size (-1) dimensions. */
function chunks(dims: number[]): number[] {
  const out: number[] = [];
  let n = 1;
  for (const d of dims) {
    if (d === -1) { out.push(n); n = 1; } else n *= d;
  }
  out.push(n);
  return out;
}
