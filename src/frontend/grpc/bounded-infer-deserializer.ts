import { toTributaryError, type TributaryError } from '../../errors.js';
import { decodeInferRequest, type ModelInferRequestMsg } from '../../protocol/grpc/index.js';

/**
 * A ModelInferRequest the decoder refused (malformed, or past a request limit), handed to the
 * handler in place of the message: grpc-js answers a throwing deserializer with INTERNAL "Error
 * deserializing request" and drops the reason, where the client needs INVALID_ARGUMENT and why.
 */
export class RefusedRequest {
  constructor(readonly error: TributaryError) {}
}

export type InferRequestOrRefusal = ModelInferRequestMsg | RefusedRequest;

/** The ModelInfer/ModelStreamInfer request deserializer: the bounded decoder, never throwing. */
export function boundedInferDeserializer(): (buf: Buffer) => InferRequestOrRefusal {
  return (buf) => {
    try {
      return decodeInferRequest(buf);
    } catch (e) {
      return new RefusedRequest(toTributaryError(e));
    }
  };
}
