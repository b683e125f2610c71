import { readFile } from 'node:fs/promises';
import { Errors } from '../errors.js';
import { createTensor, type DataType, type Tensor } from '../client/index.js';

interface InputMeta { name: string; datatype: string; shape: number[] }

/** One input as perf_analyzer's JSON gives it: a flat list, `{content, shape}` or `{b64}`. */
type JsonInput = unknown[] | { content?: unknown[]; shape?: number[]; b64?: string };

const fail = (why: string) => Errors.cliFlagExpects('input-data', "'random', 'zero' or a JSON file in perf_analyzer's format", why);

/**
 * The shape of one request's input: the model's dims with -1 filled from --shape (perf_analyzer
 * refuses to guess a variable dim), and the batch dim of -b in front when the model batches.
 */
function inputShape(meta: InputMeta, batching: boolean, batchSize: number, shapes: ReadonlyMap<string, number[]>): number[] {
  const dims = batching ? meta.shape.slice(1) : meta.shape;
  const given = shapes.get(meta.name);
  if (given && (given.length !== dims.length || given.some((d, i) => dims[i] !== -1 && dims[i] !== d))) {
    throw Errors.cliFlagExpects('shape', `${meta.name}:${dims.join(',')} (input '${meta.name}' has dims [${dims.join(',')}], -1 is any size)`, `${meta.name}:${given.join(',')}`);
  }
  const shape = given ?? dims;
  if (shape.some((d) => d < 0)) {
    throw Errors.cliFlagExpects('shape', `a size for each variable dim of input '${meta.name}' (dims [${dims.join(',')}])`, 'none');
  }
  return batching ? [batchSize, ...shape] : [...shape];
}

function syntheticValues(datatype: string, count: number, zero: boolean): number[] | string[] | boolean[] {
  if (datatype === 'BYTES') return Array.from({ length: count }, () => (zero ? '0' : Math.random().toString(36).slice(2, 18)));
  if (datatype === 'BOOL') return Array.from({ length: count }, () => !zero && Math.random() < 0.5);
  const int = !/^FP|^BF/.test(datatype);
  const unsigned = datatype.startsWith('UINT');
  // Small values keep every integer type in range; floats in [0, 1) as perf_analyzer's random data.
  return Array.from({ length: count }, () => (zero ? 0 : int ? Math.floor(Math.random() * (unsigned ? 100 : 200)) - (unsigned ? 0 : 100) : Math.random()));
}

function fromJson(meta: InputMeta, shape: number[], batching: boolean, value: JsonInput): Tensor {
  const datatype = meta.datatype as DataType;
  let content: unknown[];
  let one = batching ? shape.slice(1) : shape;
  if (Array.isArray(value)) content = value.flat(Infinity);
  else if (value && typeof value === 'object' && typeof value.b64 === 'string') {
    const bytes = Buffer.from(value.b64, 'base64');
    content = datatype === 'BYTES' ? [bytes.toString('utf8')] : Array.from(createTensorFromBytes(datatype, bytes));
    if (value.shape) one = value.shape;
  } else if (value && typeof value === 'object' && Array.isArray(value.content)) {
    content = value.content.flat(Infinity);
    if (value.shape) one = value.shape;
  } else throw fail(`input '${meta.name}': expected a list, {"content", "shape"} or {"b64"}`);
  const rows = batching ? shape[0]! : 1;
  // perf_analyzer fills a batch with the same step's data for every row.
  const all = Array.from({ length: rows }, () => content).flat();
  return createTensor(meta.name, datatype, batching ? [rows, ...one] : one, all as number[]);
}

function createTensorFromBytes(datatype: DataType, bytes: Buffer): ArrayLike<number | bigint> {
  const ctor = { FP32: Float32Array, FP64: Float64Array, INT8: Int8Array, INT16: Int16Array, INT32: Int32Array, UINT8: Uint8Array, UINT16: Uint16Array, UINT32: Uint32Array, INT64: BigInt64Array, UINT64: BigUint64Array, BOOL: Uint8Array } as Record<string, { new(b: ArrayBuffer): ArrayLike<number | bigint>; BYTES_PER_ELEMENT: number }>;
  const C = ctor[datatype];
  if (!C) throw fail(`b64 data for ${datatype} is not supported; give a list`);
  // A copy: the decoded buffer may be pooled or misaligned for the element size.
  return new C(new Uint8Array(bytes.subarray(0, bytes.byteLength - (bytes.byteLength % C.BYTES_PER_ELEMENT))).buffer);
}

/**
 * The requests' inputs: one list of tensors per data step. Random and zero data make one step;
 * a file gives perf_analyzer's `{"data": [step, ...]}` (or `[[step, ...], ...]` streams, flattened
 * in order, which is how a sequence walks them).
 */
export async function buildInputs(
  inputs: readonly InputMeta[], batching: boolean, batchSize: number, shapes: ReadonlyMap<string, number[]>, data: 'random' | 'zero' | { file: string },
): Promise<Tensor[][]> {
  for (const name of shapes.keys()) {
    if (!inputs.some((i) => i.name === name)) throw Errors.cliFlagExpects('shape', `an input of the model (${inputs.map((i) => i.name).join(', ')})`, name);
  }
  if (data === 'random' || data === 'zero') {
    return [inputs.map((m) => {
      const shape = inputShape(m, batching, batchSize, shapes);
      return createTensor(m.name, m.datatype as DataType, shape, syntheticValues(m.datatype, shape.reduce((a, b) => a * b, 1), data === 'zero') as number[]);
    })];
  }
  const text = await readFile(data.file, 'utf8').catch((e: NodeJS.ErrnoException) => { throw fail(`${data.file}: ${e.code ?? e.message}`); });
  let json: { data?: unknown };
  try {
    json = JSON.parse(text) as { data?: unknown };
  } catch (e) {
    throw fail(`${data.file} is not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(json.data) || json.data.length === 0) throw fail(`${data.file} has no "data" list`);
  const steps = (json.data as unknown[]).flatMap((s) => (Array.isArray(s) ? s : [s])) as Record<string, JsonInput>[];
  return steps.map((step, n) => inputs.map((m) => {
    const value = step[m.name];
    if (value === undefined) throw fail(`${data.file}: data step ${n} has no input '${m.name}'`);
    const given = !Array.isArray(value) && value.shape !== undefined;
    const shape = given ? [...(batching ? [batchSize] : []), ...value.shape!] : inputShape(m, batching, batchSize, shapes);
    return fromJson(m, shape, batching, value);
  }));
}
