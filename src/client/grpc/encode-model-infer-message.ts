import type { Tensor } from '../../tensor/index.js';
import type { InferOptions } from '../types.js';
import { encodeGrpcInfer } from './encode-grpc-infer.js';
import { inferenceServiceDefinition } from './load-client-protos.js';

/**
 * A ModelInfer request as the bytes of one gRPC message: uncompressed, with its 5-byte length
 * prefix, ready to send on an HTTP/2 stream as many times as needed (a load generator encodes
 * once). A Uint8Array in its signature, so that the SDK's types need no Node type definitions.
 */
export function encodeModelInferMessage(model: string, inputs: readonly Tensor[], options: InferOptions = {}): Uint8Array {
  const message = inferenceServiceDefinition().ModelInfer!.requestSerialize(encodeGrpcInfer(model, inputs, options));
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}
