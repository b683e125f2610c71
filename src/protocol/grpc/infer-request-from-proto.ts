import { Errors, inModel, isTensorLevelError } from '../../errors.js';
import { isReservedParameter, type InferenceRequest, type ParamValue, type Parameters, type RequestedOutput } from '../../inference/index.js';
import { elementCount, isDataType, tensorFromBytes, type Tensor } from '../../tensor/index.js';
import { checkInputCount, checkOutputCount, checkParameters, checkRank, parseRequestParameters } from '../index.js';
import { int64Value, parametersFromProto } from './infer-parameter.js';
import type { InferInputTensorMsg, ModelInferRequestMsg } from './messages.js';
import { hasContents, tensorFromContents } from './tensor-contents.js';

/** Where the client asked an output to be written (system shared memory). */
export interface OutputPlacement { region: string; offset: number; byteSize: number }

export interface DecodedInferRequest {
  request: InferenceRequest;
  /** Outputs to write into shared memory instead of returning their bytes. */
  placements?: Map<string, OutputPlacement>;
  /** `triton_enable_empty_final_response`: send a response for a bare final flag (streams). */
  emptyFinalResponse: boolean;
}

export interface DecodeOptions {
  /** Bytes of an input in a registered region; absent when shared memory is not offered. */
  readSharedMemory?(region: string, offset: number, byteSize: number): Uint8Array;
}


function shapeOf(model: string, io: InferInputTensorMsg): number[] {
  checkRank(io.name, io.shape.length);
  return io.shape.map((d) => {
    const n = int64Value(d);
    if (typeof n !== 'number' || n < 0) throw Errors.grpcDimensionInvalid(model, io.name, String(d));
    return n;
  });
}

interface ShmRef { region: string; offset: number; byteSize: number }

/** A parameter value as the client sent it: int64 values past 2^53 are bigints, printed exactly. */
const shown = (v: ParamValue | undefined): string | undefined => (v === undefined ? undefined : typeof v === 'string' ? JSON.stringify(v) : String(v));

/** shared_memory_region / _offset / _byte_size tensor parameters, if present. */
export function sharedMemoryRef(where: string, params: Parameters | undefined): ShmRef | undefined {
  const region = params?.shared_memory_region;
  if (region === undefined) return undefined;
  const size = params!.shared_memory_byte_size;
  const offset = params!.shared_memory_offset ?? 0;
  if (typeof region !== 'string' || region === '') throw Errors.grpcShmParameterInvalid(where, 'shared_memory_region', 'a non-empty string');
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw Errors.grpcShmParameterInvalid(where, 'shared_memory_byte_size', "given as a non-negative integer below 2^53 with 'shared_memory_region'", shown(size));
  }
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw Errors.grpcShmParameterInvalid(where, 'shared_memory_offset', 'a non-negative integer below 2^53', shown(offset));
  }
  return { region, offset, byteSize: size };
}

function withoutReserved(params: Parameters | undefined): Parameters | undefined {
  if (!params) return undefined;
  let out: Parameters | undefined;
  for (const k of Object.keys(params)) if (k === 'classification' || !isReservedParameter(k)) (out ??= {})[k] = params[k]!;
  return out;
}

function decodeInputs(msg: ModelInferRequestMsg, opts: DecodeOptions): Tensor[] {
  const model = msg.model_name;
  const raw = msg.raw_input_contents ?? [];
  let rawIndex = 0;
  const inputs: Tensor[] = new Array(msg.inputs.length);
  for (let i = 0; i < msg.inputs.length; i++) {
    const io = msg.inputs[i]!;
    if (!isDataType(io.datatype)) throw Errors.badDatatype(io.name, io.datatype);
    const shape = shapeOf(model, io);
    const where = `model '${model}', input '${io.name}'`;
    const iparams = parametersFromProto(io.parameters);
    checkParameters(`input '${io.name}'`, iparams);
    const shm = sharedMemoryRef(where, iparams);
    if (shm) {
      if (hasContents(io.contents)) throw Errors.grpcShmAndContents(model, io.name);
      if (!opts.readSharedMemory) throw Errors.grpcShmNotEnabled(where);
      inputs[i] = tensorFromBytes(io.name, io.datatype, shape, opts.readSharedMemory(shm.region, shm.offset, shm.byteSize));
    } else if (hasContents(io.contents)) {
      if (raw.length > 0) throw Errors.grpcContentsWithRaw(model, io.name);
      inputs[i] = tensorFromContents(io.name, io.datatype, shape, io.contents);
    } else if (raw.length > 0) {
      if (rawIndex >= raw.length) throw Errors.grpcRawContentsShort(where, raw.length);
      inputs[i] = tensorFromBytes(io.name, io.datatype, shape, raw[rawIndex++]!);
    } else if (elementCount(shape) === 0) {
      inputs[i] = tensorFromBytes(io.name, io.datatype, shape, new Uint8Array(0));
    } else {
      throw Errors.grpcInputNoData(model, io.name);
    }
  }
  if (rawIndex !== raw.length) {
    throw Errors.grpcRawContentsCount(model, rawIndex, raw.length);
  }
  return inputs;
}

/**
 * A ModelInferRequest as an InferenceRequest. Raw contents become tensor views over the received
 * buffers (no per-element decode); reserved parameters become request fields;
 * `triton_enable_empty_final_response` stays with the front end, and any other `triton_*` key is
 * refused, as Triton refuses it.
 */
export function inferRequestFromProto(msg: ModelInferRequestMsg, opts: DecodeOptions = {}): DecodedInferRequest {
  try {
    return decode(msg, opts);
  } catch (e) {
    // Tensor-level errors name only the tensor; add the model so the message names the whole path.
    if (isTensorLevelError(e)) throw inModel(e, msg.model_name);
    throw e;
  }
}

function decode(msg: ModelInferRequestMsg, opts: DecodeOptions): DecodedInferRequest {
  checkInputCount(msg.model_name, msg.inputs.length);
  if (msg.outputs) checkOutputCount(msg.model_name, msg.outputs.length);
  let params = parametersFromProto(msg.parameters);
  checkParameters('request', params);
  let emptyFinalResponse = false;
  if (params) {
    const rest: Parameters = {};
    for (const k of Object.keys(params)) {
      const v = params[k]!;
      if (k === 'triton_enable_empty_final_response') {
        if (typeof v !== 'boolean') throw Errors.requestParameterType('request', k, 'a boolean');
        emptyFinalResponse = v;
      } else if (k.startsWith('triton_')) {
        throw Errors.requestParameterTriton(k, 'grpc');
      } else {
        rest[k] = v;
      }
    }
    params = rest;
  }
  // A sequence_id past 2^53 is a bigint here (int64Value) and stays exact through it; one below 0
  // (an int64_param) is refused with its digits.
  const parsed = parseRequestParameters(params, 'grpc');

  const inputs = decodeInputs(msg, opts);

  let outputs: RequestedOutput[] | undefined;
  let placements: Map<string, OutputPlacement> | undefined;
  if (msg.outputs && msg.outputs.length > 0) {
    outputs = msg.outputs.map((o) => {
      const oparams = parametersFromProto(o.parameters);
      checkParameters(`output '${o.name}'`, oparams);
      const shm = sharedMemoryRef(`model '${msg.model_name}', output '${o.name}'`, oparams);
      if (shm) (placements ??= new Map()).set(o.name, shm);
      const kept = withoutReserved(oparams);
      return kept ? { name: o.name, parameters: kept } : { name: o.name };
    });
  }

  const request: InferenceRequest = { model: msg.model_name, inputs, ...parsed.fields };
  if (msg.model_version) request.version = msg.model_version;
  if (msg.id) request.id = msg.id;
  if (outputs) request.outputs = outputs;
  if (parsed.parameters && Object.keys(parsed.parameters).length > 0) request.parameters = parsed.parameters;
  return placements ? { request, placements, emptyFinalResponse } : { request, emptyFinalResponse };
}
