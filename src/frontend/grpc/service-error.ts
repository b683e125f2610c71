import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { toTributaryError } from '../../errors.js';
import { grpcCodeForKind, wireMessageOf } from '../../protocol/index.js';

/** Anything thrown as a gRPC error: the code comes from the one status table, details are the (bounded) message. */
export function toServiceError(e: unknown): Partial<ServiceError> {
  const err = toTributaryError(e);
  const text = wireMessageOf(err);
  return { name: err.name, code: grpcCodeForKind(err.kind), details: text, message: text, metadata: new Metadata() };
}
