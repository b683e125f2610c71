/**
 * Checks of inputs, outputs and batch inputs/outputs (Triton's ValidateIOShape, ValidateBatchIO and
 * friends), in Triton's words where it makes the check: "model input 'x' ..." then " for <model>".
 */
import type { ConfigReporter } from './config-reporter.js';
import { label } from './config-reporter.js';
import type { ModelInput, ModelOutput } from './model-config.js';

export function validateIo(r: ConfigReporter): void {
  const c = r.config;
  tensors(r, 'input', c.input);
  tensors(r, 'output', c.output);
  const inputs = new Set(c.input.map((i) => i.name));
  const outputs = new Set(c.output.map((o) => o.name));
  const forModel = ` for ${c.name}`;
  c.batch_input.forEach((b, i) => {
    const at = `batch_input[${i}]`;
    if (b.source_input.length !== 1) {
      r.triton(`${at}.source_input`, `batch input kind '${b.kind}' expects 1 source input, got ${b.source_input.length}${forModel}`, at);
    }
    if (b.data_type !== 'TYPE_INT32' && b.data_type !== 'TYPE_FP32') {
      r.triton(`${at}.data_type`, `batch input data type must be TYPE_INT32 or TYPE_FP32${forModel}`, `${at} has ${b.data_type}`);
    }
    b.source_input.forEach((s, k) => {
      if (!inputs.has(s)) r.triton(`${at}.source_input[${k}]`, `unknown source input name '${s}'${forModel}`, `${at}: not an input of the model`);
    });
  });
  c.batch_output.forEach((b, i) => {
    const at = `batch_output[${i}]`;
    if (b.source_input.length !== 1) {
      r.triton(`${at}.source_input`, `batch output kind '${b.kind}' expects 1 source input, got ${b.source_input.length}${forModel}`, at);
    }
    b.source_input.forEach((s, k) => {
      if (!inputs.has(s)) r.triton(`${at}.source_input[${k}]`, `unknown source input name '${s}'${forModel}`, `${at}: not an input of the model`);
    });
    const targets = new Set<string>();
    b.target_name.forEach((t, k) => {
      if (!outputs.has(t)) r.triton(`${at}.target_name[${k}]`, `unknown target output name '${t}'${forModel}`, `${at}: not an output of the model`);
      else if (targets.has(t)) r.triton(`${at}.target_name[${k}]`, `target output name '${t}' can only be specified once${forModel}`, at);
      targets.add(t);
    });
  });
}

function tensors(r: ConfigReporter, kind: 'input' | 'output', list: readonly (ModelInput | ModelOutput)[]): void {
  const mbs = r.config.max_batch_size;
  const forModel = ` for ${r.config.name}`;
  const seen = new Map<string, number>();
  list.forEach((io, i) => {
    const at = `${kind}[${i}]`;
    const who = label(at, io.name);
    // Triton's prefix: "model input 'x' " (ValidateIOShape).
    const model = `model ${kind} ${io.name ? `'${io.name}' ` : ''}`;
    if (!io.name) r.triton(r.has(`${at}.name`) ? `${at}.name` : at, `model ${kind} must specify 'name'${forModel}`, at);
    else if (seen.has(io.name)) r.error(`${at}.name`, `${who}: duplicate ${kind} name (also ${kind}[${seen.get(io.name)}])`);
    else seen.set(io.name, i);
    if (io.data_type === 'TYPE_INVALID') {
      r.triton(r.has(`${at}.data_type`) ? `${at}.data_type` : at, `${model}must specify 'data_type'${forModel}`,
        r.has(`${at}.data_type`) ? `${who}: data_type must not be TYPE_INVALID` : who);
    }
    if (io.dims.length === 0) {
      r.triton(r.has(`${at}.dims`) ? `${at}.dims` : at, `${model}must specify 'dims'${forModel}`, mbs === 0
        ? `${who}: dims must not be empty when max_batch_size is 0`
        : `${who}: dims must not be empty; for a tensor that is only the batch dimension use dims: [1] with reshape: { shape: [] }`);
    }
    io.dims.forEach((d, k) => {
      if (d < 1 && d !== -1) {
        r.triton(`${at}.dims[${k}]`, `${model}dimension must be integer >= 1, or -1 to indicate a variable-size dimension${forModel}`, `${who}: dims[${k}] is ${d}`);
      }
    });
    if ('format' in io && io.format && io.format !== 'FORMAT_NONE' && io.dims.length !== 3) {
      r.triton(`${at}.format`, `model input NHWC/NCHW require 3 dims${forModel}`, `${who}: format ${io.format} needs 3 dims (without the batch dimension), got ${io.dims.length}`);
    }
    // TensorRT-only fields (ValidateModelInput/Output, ValidateNonLinearFormatIO); no backend here runs TensorRT.
    if (io.is_shape_tensor && r.config.platform !== 'tensorrt_plan') {
      r.triton(`${at}.is_shape_tensor`, `shape tensors are only supported for TensorRT platform${forModel}`, who);
    }
    if (io.is_non_linear_format_io && r.config.platform !== 'tensorrt_plan') {
      r.triton(`${at}.is_non_linear_format_io`, `Non-linear IO format is only supported for the TensorRT platform${forModel}`, who);
    }
    if (io.reshape) reshape(r, at, who, model, forModel, io.dims, io.reshape.shape, mbs);
  });
}

function reshape(r: ConfigReporter, at: string, who: string, model: string, forModel: string, dims: number[], shape: number[], mbs: number): void {
  const path = `${at}.reshape`;
  if (shape.length === 0 && mbs === 0) {
    r.triton(path, `${model}cannot have empty reshape for non-batching model as scalar tensors are not supported${forModel}`, who);
    return;
  }
  const bad = shape.findIndex((d) => d < 1 && d !== -1);
  if (bad >= 0) {
    r.triton(`${path}.shape[${bad}]`, `${model}reshape dimensions must be integer >= 1, or -1 to indicate a variable-size dimension${forModel}`,
      `${who}: reshape dimension ${shape[bad]}`);
    return;
  }
  if (dims.some((d) => d < 1 && d !== -1)) return;
  const a = chunks(dims);
  const b = chunks(shape);
  // An empty reshape stands for a tensor of one element (dims [1] -> shape []).
  if (shape.length === 0) {
    if (a.length !== 1 || a[0] !== 1) {
      r.triton(path, `${model}has different size for dims and reshape${forModel}`, `${who}: an empty reshape needs dims with exactly 1 element, got dims [${dims.join(', ')}]`);
    }
    return;
  }
  // As Triton: element counts first (a -1 on one side only is a different size), then the runs.
  if (a.length !== b.length && dims.includes(-1) && shape.includes(-1)) {
    r.triton(path, `${model}has different number of variable-size dimensions for dims and reshape${forModel}`,
      `${who}: reshape [${shape.join(', ')}] is incompatible with dims [${dims.join(', ')}] (element counts between -1 dimensions must match)`);
  } else if (a.length !== b.length || a.some((n, k) => n !== b[k])) {
    r.triton(path, `${model}has different size for dims and reshape${forModel}`, a.length === 1
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
