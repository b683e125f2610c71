/**
 * An /infer response body (JSON, or JSON + binary outputs) as an InferResult. Binary outputs are
 * views over the body (no per-element work); JSON outputs are the slow path and are checked by
 * protocol's tensorFromJson.
 */
import type { Parameters } from '../../inference/index.js';
import { BinaryCursor, binaryInput, outputFromJson, rawBytesJsonText, splitInferBody } from '../../protocol/index.js';
import { createTensor, type DataType, type Tensor } from '../../tensor/index.js';
import { ClientError } from '../client-error.js';
import { numberToBf16, numberToHalf } from '../half-float.js';
import { inferResult } from '../infer-result.js';
import type { InferResult } from '../types.js';

interface OutputJson { name: string; datatype: DataType; shape: number[]; parameters?: Parameters; data?: unknown[] }
export interface ResponseJson { model_name: string; model_version?: string; id?: string; parameters?: Parameters; outputs?: OutputJson[]; error?: string }

const NUMERIC_DATA = /"data":\[([^\]"]*)\]/g;
const BIG_ELEMENT = /(^|,)(-?\d{16,})(?=,|$)/g;

/**
 * JSON.parse rounds integers past 2^53: quote long integer elements of numeric `data` arrays
 * (INT64/UINT64 outputs) so tensorFromJson reads them exactly. Only runs when such digits exist.
 */
export function parseResponseJson(text: string): ResponseJson {
  if (/\d{16}/.test(text)) text = text.replace(NUMERIC_DATA, (_m, body: string) => `"data":[${body.replace(BIG_ELEMENT, '$1"$2"')}]`);
  return JSON.parse(text) as ResponseJson;
}

function jsonOutput(o: OutputJson): Tensor {
  if (o.datatype === 'FP16' || o.datatype === 'BF16') {
    const narrow = o.datatype === 'FP16' ? numberToHalf : numberToBf16;
    return createTensor(o.name, o.datatype, o.shape, Uint16Array.from(o.data as number[], (v) => narrow(v ?? NaN)));
  }
  return outputFromJson(o.name, o.datatype, o.shape, o.data);
}

/** A parsed response object (and the binary section after its header, if any) as an InferResult. */
export function resultFromJson(obj: ResponseJson, binary?: Uint8Array): InferResult {
  if (typeof obj.error === 'string') throw new ClientError(obj.error);
  const cursor = new BinaryCursor(binary);
  const outputs = (obj.outputs ?? []).map((o) => {
    const size = o.parameters?.binary_data_size;
    if (size !== undefined) return binaryInput(o.name, o.datatype, o.shape, cursor.take(o.name, Number(size)));
    if (o.data === undefined) return { name: o.name, datatype: o.datatype, shape: o.shape, data: [] as Uint8Array[] }; // in shared memory
    return jsonOutput(o);
  });
  return inferResult(obj.model_name, obj.model_version ?? '', obj.id ?? '', outputs, obj.parameters ?? {});
}

export function decodeHttpInfer(body: Uint8Array, headerLength: number | undefined): InferResult {
  const { json, binary } = splitInferBody(body, headerLength);
  // Bytes that are not UTF-8 in a BYTES element come raw (as from Triton): read them as bytes.
  return resultFromJson(parseResponseJson(rawBytesJsonText(json)), binary);
}
