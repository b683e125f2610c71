import { Errors } from '../../errors.js';
import type { InferenceResponse } from '../../inference/index.js';
import { tensorToBytes } from '../../tensor/index.js';
import { parametersToProto } from './infer-parameter.js';
import type { OutputPlacement } from './infer-request-from-proto.js';
import type { InferOutputTensorMsg, ModelInferResponseMsg } from './messages.js';

export interface EncodeOptions {
  /** The request's id, echoed in every response. */
  id?: string;
  placements?: Map<string, OutputPlacement>;
  writeSharedMemory?(region: string, offset: number, bytes: Uint8Array): void;
  /** Streams set `triton_final_response` on every response (true on the request's last one). */
  finalFlag?: boolean;
}

const EMPTY = new Uint8Array(0);

/**
 * An InferenceResponse as a ModelInferResponse. Outputs go out as raw_output_contents (as Triton
 * answers): numeric tensors are views, no copy until protobuf encodes the message. Outputs placed
 * in shared memory are written there; their raw entry stays empty so indexes keep matching.
 */
export function inferResponseToProto(resp: InferenceResponse, opts: EncodeOptions = {}): ModelInferResponseMsg {
  const n = resp.outputs.length;
  const outputs: InferOutputTensorMsg[] = new Array(n);
  const raw: Uint8Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const t = resp.outputs[i]!;
    const bytes = tensorToBytes(t);
    const place = opts.placements?.get(t.name);
    if (place && opts.writeSharedMemory) {
      if (bytes.byteLength > place.byteSize) {
        throw Errors.outputShmTooSmall(resp.model, t.name, place.byteSize, bytes.byteLength);
      }
      opts.writeSharedMemory(place.region, place.offset, bytes);
      outputs[i] = {
        name: t.name, datatype: t.datatype, shape: t.shape as number[],
        parameters: parametersToProto({
          shared_memory_region: place.region, shared_memory_offset: place.offset, shared_memory_byte_size: bytes.byteLength,
        }),
      };
      raw[i] = EMPTY;
    } else {
      outputs[i] = { name: t.name, datatype: t.datatype, shape: t.shape as number[] };
      raw[i] = bytes;
    }
  }
  const parameters = parametersToProto(resp.parameters);
  if (opts.finalFlag !== undefined) parameters.triton_final_response = { bool_param: opts.finalFlag };
  return {
    model_name: resp.model,
    model_version: resp.version,
    id: opts.id ?? resp.id ?? '',
    parameters,
    outputs,
    raw_output_contents: raw,
  };
}

/** The empty final response a stream sends when asked (`triton_enable_empty_final_response`). */
export function emptyFinalResponse(model: string, version: string, id: string): ModelInferResponseMsg {
  return {
    model_name: model, model_version: version, id,
    parameters: { triton_final_response: { bool_param: true } },
    outputs: [], raw_output_contents: [],
  };
}
