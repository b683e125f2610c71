/**
 * An /infer request body as a list of chunks: the JSON header, then (binary tensor extension) each
 * binary input's bytes. Numeric tensors go out as views of their typed arrays, so the body is
 * never assembled into one buffer here: the socket writes the chunks (writev) directly.
 */
import type { Parameters } from '../../inference/index.js';
import { tensorDataJson } from '../../protocol/index.js';
import { tensorToBytes, type Tensor } from '../../tensor/index.js';
import { inferParameters } from '../infer-parameters.js';
import { sharedMemoryParameters, type SharedMemoryRef } from '../shared-memory.js';
import type { InferOptions } from '../types.js';

export interface EncodedBody {
  chunks: (string | Uint8Array)[];
  byteLength: number;
  /** `Inference-Header-Content-Length` when binary chunks follow the JSON. */
  headerLength?: number;
}

/** JSON has no exact form for FP16/BF16, so they travel binary even when the client speaks JSON. */
const alwaysBinary = (t: Tensor) => t.datatype === 'FP16' || t.datatype === 'BF16';

/**
 * INT64/UINT64 past 2^53 as decimal strings (the v2 decoder accepts them): a JSON number that
 * large would be rounded by the server's JSON.parse.
 */
function dataJson(t: Tensor): string {
  if (t.datatype !== 'INT64' && t.datatype !== 'UINT64') return tensorDataJson(t);
  const d = t.data as BigInt64Array | BigUint64Array;
  let s = '[';
  for (let i = 0; i < d.length; i++) {
    const v = d[i]!;
    const safe = v <= 9007199254740991n && v >= -9007199254740991n;
    s += (i ? ',' : '') + (safe ? v.toString() : `"${v}"`);
  }
  return s + ']';
}

function parametersJson(p: Parameters): string {
  let s = '{';
  let first = true;
  for (const k of Object.keys(p)) {
    const v = p[k]!;
    s += `${first ? '' : ','}${JSON.stringify(k)}:${typeof v === 'bigint' ? v.toString() : JSON.stringify(v)}`;
    first = false;
  }
  return s + '}';
}

/** The shared-memory parameters as JSON members (no braces). */
const shmJson = (ref: SharedMemoryRef): string => parametersJson(sharedMemoryParameters(ref)).slice(1, -1);

export function encodeHttpInfer(inputs: readonly Tensor[], options: InferOptions, binary: boolean): EncodedBody {
  const chunks: (string | Uint8Array)[] = [''];
  let binaryBytes = 0;
  let s = '{';
  if (options.id !== undefined) s += `"id":${JSON.stringify(options.id)},`;
  let params = inferParameters(options);
  if (binary && !options.outputs) params = { ...params, binary_data_output: true };
  if (params) s += `"parameters":${parametersJson(params)},`;
  if (options.outputs) {
    s += '"outputs":[';
    options.outputs.forEach((o, i) => {
      s += `${i ? ',' : ''}{"name":${JSON.stringify(o.name)},"parameters":{"binary_data":${o.sharedMemory ? false : (o.binary ?? binary)}`;
      if (o.classification !== undefined) s += `,"classification":${o.classification}`;
      if (o.sharedMemory) s += `,${shmJson(o.sharedMemory)}`;
      s += '}}';
    });
    s += '],';
  }
  s += '"inputs":[';
  for (let i = 0; i < inputs.length; i++) {
    const t = inputs[i]!;
    s += `${i ? ',' : ''}{"name":${JSON.stringify(t.name)},"datatype":"${t.datatype}","shape":[${t.shape.join(',')}]`;
    const shm = options.inputSharedMemory?.[t.name];
    if (shm) {
      s += `,"parameters":{${shmJson(shm)}}}`;
    } else if (binary || alwaysBinary(t)) {
      const bytes = tensorToBytes(t);
      chunks.push(bytes);
      binaryBytes += bytes.byteLength;
      s += `,"parameters":{"binary_data_size":${bytes.byteLength}}}`;
    } else {
      s += `,"data":${dataJson(t)}}`;
    }
  }
  s += ']}';
  chunks[0] = s;
  const headerLength = Buffer.byteLength(s);
  const out: EncodedBody = { chunks, byteLength: headerLength + binaryBytes };
  if (chunks.length > 1) out.headerLength = headerLength;
  return out;
}
