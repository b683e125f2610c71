import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { toTributaryError } from '../../errors.js';
import { grpcCodeForKind } from '../../protocol/index.js';

/** Anything thrown as a gRPC error: the code comes from the one status table, details are the message. */
export function toServiceError(e: unknown): Partial<ServiceError> {
  const err = toTributaryError(e);
  return { name: err.name, code: grpcCodeForKind(err.kind), details: err.message, message: err.message, metadata: new Metadata() };
}
