/**
 * KServe v2 inference JSON <-> InferenceRequest / InferenceResponse, with the binary tensor
 * extension and shared-memory parameters folded in. The gRPC front end produces the same
 * InferenceRequest from protobuf. Server side: `decodeInferRequest`, `encodeInferResponse`.
 * Client side (bench, tests, SDK): `encodeInferRequest`, `decodeInferResponse`.
 */
import { Errors, inModel, isTensorLevelError } from '../errors.js';
import { isDataType, tensorByteSize, tensorToBytes, type DataType, type Tensor } from '../tensor/index.js';
import { namesSeen, repeatsName, type InferenceRequest, type InferenceResponse, type Parameters, type RequestedOutput } from '../inference/index.js';
import { BinaryCursor, binaryInput, frameBinary, splitInferBody } from './binary-tensor.js';
import { tensorDataJson, tensorFromJson } from './json-tensor.js';
import { jsonWireBytes, rawBytesJsonText, rawBytesOf } from './raw-bytes-json.js';
import { parseJsonExact, stringifyExact } from './exact-json.js';
import { checkParamValue, parseRequestParameters } from './request-parameters.js';
import { checkInputCount, checkOutputCount, checkParameters, checkRank } from './request-limits.js';


export interface SharedMemoryAccess {
  read(region: string, offset: number, byteSize: number): Uint8Array;
  write(region: string, offset: number, bytes: Uint8Array): void;
}

export interface DecodeContext {
  model: string;
  version?: string;
  /** Bytes after the JSON header (binary tensor extension). */
  binary?: Uint8Array;
  /** System shared memory; undefined when the server runs without it. */
  sharedMemory?: SharedMemoryAccess;
  /**
   * The JSON came from JSON.parse, not parseJsonExact: an integer past 2^53 that must be exact
   * throws requestJsonInexact, and the caller decodes the exactly parsed text instead.
   */
  lossy?: boolean;
}

interface OutputPlacement { region: string; offset: number; byteSize: number }

/** How the response must be encoded: decided by the request, applied by `encodeInferResponse`. */
export interface ResponseEncoding {
  /** `binary_data_output` (default for every output). */
  binaryDefault: boolean;
  /** Per-output `binary_data` overrides. */
  binary?: Record<string, boolean>;
  /** Outputs to be written into shared memory instead of the body. */
  sharedMemory?: Record<string, OutputPlacement>;
}

export interface DecodedInfer { request: InferenceRequest; encoding: ResponseEncoding }

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readParams(where: string, v: unknown, lossy: boolean | undefined): Parameters | undefined {
  if (v === undefined) return undefined;
  if (!isObject(v)) throw Errors.requestParametersNotObject(where);
  checkParameters(where, v);
  const out: Parameters = {};
  for (const k of Object.keys(v)) out[k] = checkParamValue(where, k, v[k], lossy);
  return out;
}

function readShape(name: string, v: unknown): number[] {
  if (!Array.isArray(v)) throw Errors.tensorShapeInvalid(name);
  checkRank(name, v.length);
  for (const d of v) {
    if (typeof d !== 'number' || !Number.isSafeInteger(d)) throw Errors.tensorShapeInvalid(name, stringifyExact(v));
  }
  for (const d of v as number[]) if (d < 0) throw Errors.tensorShapeNegative(name, `[${v.join(',')}]`);
  return v as number[];
}

function uintParam(tensor: string, key: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    const must = typeof v === 'bigint' && v > 0n ? 'a non-negative integer below 2^53' : 'a non-negative integer';
    throw Errors.tensorParameterInvalid(tensor, key, must, stringifyExact(v));
  }
  return v;
}

function placement(tensor: string, p: Parameters | undefined): OutputPlacement | undefined {
  const region = p?.shared_memory_region;
  if (region === undefined) return undefined;
  if (typeof region !== 'string') throw Errors.tensorParameterInvalid(tensor, 'shared_memory_region', 'a string');
  const byteSize = p!.shared_memory_byte_size;
  if (byteSize === undefined) throw Errors.tensorShmSizeMissing(tensor, region);
  return {
    region,
    offset: p!.shared_memory_offset === undefined ? 0 : uintParam(tensor, 'shared_memory_offset', p!.shared_memory_offset),
    byteSize: uintParam(tensor, 'shared_memory_byte_size', byteSize),
  };
}

/** Without a registry (client shared memory off) no region is registered, as in Triton. */
function noShm(region: string): never {
  throw Errors.shmRegionUnknown(region, true);
}

function decodeInput(v: unknown, index: number, ctx: DecodeContext, cursor: BinaryCursor): Tensor {
  if (!isObject(v)) throw Errors.requestInputInvalid(index);
  const name = v.name;
  if (typeof name !== 'string' || name === '') throw Errors.requestInputNameMissing(index);
  const dt = v.datatype;
  if (dt === undefined) throw Errors.tensorDatatypeMissing(name);
  if (!isDataType(dt)) throw Errors.badDatatype(name, String(dt));
  if (v.shape === undefined) throw Errors.tensorShapeMissing(name);
  const shape = readShape(name, v.shape);
  const params = readParams(`input '${name}'`, v.parameters, ctx.lossy);
  const shm = placement(name, params);
  const binSize = params?.binary_data_size;
  const sources = (v.data !== undefined ? 1 : 0) + (binSize !== undefined ? 1 : 0) + (shm ? 1 : 0);
  if (sources === 0) throw Errors.tensorDataMissing(name);
  if (sources > 1) throw Errors.tensorDataSources(name);
  if (binSize !== undefined) {
    return binaryInput(name, dt as DataType, shape, cursor.take(name, uintParam(name, 'binary_data_size', binSize)));
  }
  if (shm) {
    if (!ctx.sharedMemory) noShm(shm.region);
    return binaryInput(name, dt as DataType, shape, ctx.sharedMemory.read(shm.region, shm.offset, shm.byteSize));
  }
  return tensorFromJson(name, dt as DataType, shape, v.data, ctx.lossy);
}

/** Decode a parsed v2 inference request JSON object (plus any binary section). */
export function decodeInferRequest(json: unknown, ctx: DecodeContext): DecodedInfer {
  if (!isObject(json)) throw Errors.requestBodyNotObject('inference');
  if (!Array.isArray(json.inputs)) throw Errors.requestInputsMissing();
  if (json.id !== undefined && typeof json.id !== 'string') throw Errors.requestIdInvalid();
  checkInputCount(ctx.model, json.inputs.length);
  const cursor = new BinaryCursor(ctx.binary);
  const inputs: Tensor[] = new Array(json.inputs.length);
  const seen = namesSeen(json.inputs.length);
  for (let i = 0; i < json.inputs.length; i++) {
    let t: Tensor;
    try {
      t = decodeInput(json.inputs[i], i, ctx, cursor);
    } catch (e) {
      // The codec names the tensor; the model is named here, as the gRPC decoder does.
      throw isTensorLevelError(e) ? inModel(e, ctx.model) : e;
    }
    inputs[i] = t;
    if (repeatsName(inputs, i, seen)) throw Errors.inputDuplicate(ctx.model, t.name);
  }
  cursor.finish();
  const params = readParams('request', json.parameters, ctx.lossy);
  if (params) for (const k of Object.keys(params)) if (k.startsWith('triton_')) throw Errors.requestParameterTriton(k, 'http');
  const parsed = parseRequestParameters(params);
  const encoding: ResponseEncoding = { binaryDefault: parsed.binaryDataOutput ?? false };
  let outputs: RequestedOutput[] | undefined;
  if (json.outputs !== undefined) {
    if (!Array.isArray(json.outputs)) throw Errors.requestOutputsNotArray();
    checkOutputCount(ctx.model, json.outputs.length);
    outputs = json.outputs.map((o: unknown, i: number) => {
      if (!isObject(o) || typeof o.name !== 'string' || o.name === '') throw Errors.requestOutputInvalid(i);
      const p = readParams(`output '${o.name}'`, o.parameters, ctx.lossy);
      if (p?.binary_data !== undefined) {
        if (typeof p.binary_data !== 'boolean') throw Errors.tensorParameterInvalid(o.name, 'binary_data', 'a boolean');
        (encoding.binary ??= {})[o.name] = p.binary_data;
      }
      if (p?.classification !== undefined) uintParam(o.name, 'classification', p.classification);
      const shm = placement(o.name, p);
      if (shm) {
        if (p?.classification !== undefined) throw Errors.outputShmConflict(o.name, 'classification');
        if (p?.binary_data === true) throw Errors.outputShmConflict(o.name, 'binary_data');
        if (!ctx.sharedMemory) noShm(shm.region);
        (encoding.sharedMemory ??= {})[o.name] = shm;
      }
      return p ? { name: o.name, parameters: p } : { name: o.name };
    });
  }
  const request: InferenceRequest = { model: ctx.model, inputs, ...parsed.fields };
  if (ctx.version) request.version = ctx.version;
  if (json.id !== undefined) request.id = json.id as string;
  if (outputs) request.outputs = outputs;
  if (parsed.parameters) request.parameters = parsed.parameters;
  return { request, encoding };
}

/** Parameters as JSON; an int64 parameter (a bigint) keeps every digit. */
function paramsJson(p: Parameters): string {
  return stringifyExact(p);
}

/**
 * A response as JSON, or as a JSON header plus the tensors to send binary after it, in order. The
 * JSON is a Buffer when a BYTES output sent as JSON holds bytes that are not UTF-8 (kept raw, as
 * Triton sends them: raw-bytes-json.ts).
 */
export type ResponseParts = { json: string | Buffer; binary?: undefined } | { json: string | Buffer; binary: Tensor[] };

/**
 * Encode a response without framing it: the JSON (header) text, and the outputs that go binary
 * after it. Front ends that can write several chunks send the tensors' own bytes (no copy);
 * `encodeInferResponse` frames them into one buffer. Outputs placed in shared memory are written
 * there through `sharedMemory` and carry no data.
 */
export function encodeInferResponseParts(
  res: InferenceResponse,
  enc: ResponseEncoding,
  sharedMemory?: SharedMemoryAccess,
): ResponseParts {
  let s = `{"model_name":${JSON.stringify(res.model)},"model_version":${JSON.stringify(res.version)}`;
  if (res.id !== undefined && res.id !== '') s += `,"id":${JSON.stringify(res.id)}`;
  if (res.parameters && Object.keys(res.parameters).length) s += `,"parameters":${paramsJson(res.parameters)}`;
  s += ',"outputs":[';
  const binary: Tensor[] = [];
  let bytesAsJson = false;
  for (let i = 0; i < res.outputs.length; i++) {
    const t = res.outputs[i]!;
    s += `${i ? ',' : ''}{"name":${JSON.stringify(t.name)},"datatype":"${t.datatype}","shape":[${t.shape.join(',')}]`;
    const shm = enc.sharedMemory?.[t.name];
    if (shm) {
      const bytes = tensorToBytes(t);
      if (bytes.byteLength > shm.byteSize) {
        throw Errors.outputShmTooSmall(res.model, t.name, shm.byteSize, bytes.byteLength);
      }
      sharedMemory!.write(shm.region, shm.offset, bytes);
      s += `,"parameters":{"shared_memory_region":${JSON.stringify(shm.region)},"shared_memory_byte_size":${bytes.byteLength}}}`;
    } else if (enc.binary?.[t.name] ?? enc.binaryDefault) {
      binary.push(t);
      s += `,"parameters":{"binary_data_size":${tensorByteSize(t)}}}`;
    } else {
      s += `,"data":${tensorDataJson(t)}}`;
      if (t.datatype === 'BYTES') bytesAsJson = true;
    }
  }
  s += ']}';
  const json = bytesAsJson ? jsonWireBytes(s) : s;
  return binary.length === 0 ? { json } : { json, binary };
}

/**
 * Encode a response: JSON alone, or JSON header + binary outputs framed in one buffer
 * (`headerLength` set).
 */
export function encodeInferResponse(
  res: InferenceResponse,
  enc: ResponseEncoding,
  sharedMemory?: SharedMemoryAccess,
): { body: string | Buffer; headerLength?: number } {
  const parts = encodeInferResponseParts(res, enc, sharedMemory);
  if (parts.binary === undefined) return { body: parts.json };
  return frameBinary(parts.json, parts.binary);
}

/** Client side: encode a request (JSON, or binary inputs with `binary: true`). */
export function encodeInferRequest(
  req: { id?: string; inputs: readonly Tensor[]; outputs?: readonly RequestedOutput[]; parameters?: Parameters },
  options: { binary?: boolean } = {},
): { body: string | Buffer; headerLength?: number } {
  const inputs = req.inputs.map((t) => (options.binary
    ? `{"name":${JSON.stringify(t.name)},"datatype":"${t.datatype}","shape":[${t.shape.join(',')}],"parameters":{"binary_data_size":${tensorByteSize(t)}}}`
    : `{"name":${JSON.stringify(t.name)},"datatype":"${t.datatype}","shape":[${t.shape.join(',')}],"data":${tensorDataJson(t)}}`));
  let s = '{';
  if (req.id !== undefined) s += `"id":${JSON.stringify(req.id)},`;
  if (req.parameters) s += `"parameters":${paramsJson(req.parameters)},`;
  if (req.outputs) s += `"outputs":${stringifyExact(req.outputs.map((o) => (o.parameters ? { name: o.name, parameters: o.parameters } : { name: o.name })))},`;
  s += `"inputs":[${inputs.join(',')}]}`;
  if (!options.binary) return { body: s };
  return frameBinary(s, req.inputs);
}

export interface DecodedResponse {
  model_name: string;
  model_version: string;
  id?: string;
  parameters?: Parameters;
  outputs: Tensor[];
}

/**
 * Client side: an output's JSON `data` as a tensor, checked as tensorFromJson checks it, with BYTES
 * elements read from `rawBytesJsonText` text kept byte for byte (a server sends bytes that are not
 * UTF-8 raw, as Triton's does).
 */
export function outputFromJson(name: string, datatype: DataType, shape: readonly number[], data: unknown): Tensor {
  const t = tensorFromJson(name, datatype, shape, data);
  if (datatype !== 'BYTES') return t;
  return { ...t, data: (data as unknown[]).flat(Infinity).map((v) => rawBytesOf(v as string)) };
}

/** Client side: decode a response body (JSON or binary framed). */
export function decodeInferResponse(body: Uint8Array, headerLength?: number): DecodedResponse {
  const { json, binary } = splitInferBody(body, headerLength);
  const obj = parseJsonExact(rawBytesJsonText(json)) as {
    model_name: string; model_version: string; id?: string; parameters?: Parameters;
    outputs: { name: string; datatype: DataType; shape: number[]; parameters?: Parameters; data?: unknown }[];
  };
  const cursor = new BinaryCursor(binary);
  const outputs = (obj.outputs ?? []).map((o) => {
    const size = o.parameters?.binary_data_size;
    if (size !== undefined) return binaryInput(o.name, o.datatype, o.shape, cursor.take(o.name, Number(size)));
    if (o.data === undefined) return { name: o.name, datatype: o.datatype, shape: o.shape, data: [] as Uint8Array[] };
    return outputFromJson(o.name, o.datatype, o.shape, o.data);
  });
  const out: DecodedResponse = { model_name: obj.model_name, model_version: obj.model_version, outputs };
  if (obj.id !== undefined) out.id = obj.id;
  if (obj.parameters !== undefined) out.parameters = obj.parameters;
  return out;
}
