/**
 * The one table from error kinds to wire statuses, shared by the HTTP and gRPC front ends.
 * HTTP follows Triton's http_server.cc: INTERNAL 500, NOT_FOUND 404, UNAVAILABLE 503,
 * UNSUPPORTED 501 and everything else 400. A TributaryError's own `httpStatus` (408 for a body
 * that arrives too slowly) wins. gRPC codes are the numeric grpc status codes Triton returns. The text every
 * front end sends is wireMessageOf's, cut to MAX_MESSAGE_BYTES (src/errors.ts).
 */
import { boundMessage, toTributaryError, type ErrorKind } from '../errors.js';

interface StatusRow { http: number; grpc: number }

export const STATUS_TABLE: Readonly<Record<ErrorKind, StatusRow>> = Object.freeze({
  UNKNOWN: { http: 400, grpc: 2 },
  INTERNAL: { http: 500, grpc: 13 },
  NOT_FOUND: { http: 404, grpc: 5 },
  INVALID_ARG: { http: 400, grpc: 3 },
  UNAVAILABLE: { http: 503, grpc: 14 },
  UNSUPPORTED: { http: 501, grpc: 12 },
  ALREADY_EXISTS: { http: 400, grpc: 6 },
  CANCELLED: { http: 400, grpc: 1 },
});

/** HTTP status for an error kind. */
function httpStatusForKind(kind: ErrorKind): number {
  return STATUS_TABLE[kind]?.http ?? 400;
}

/** gRPC status code number for an error kind. */
export function grpcCodeForKind(kind: ErrorKind): number {
  return STATUS_TABLE[kind]?.grpc ?? 2;
}

/** HTTP status for anything thrown: the error's own override first, then its kind. */
export function httpStatusOf(error: unknown): number {
  const e = toTributaryError(error);
  return e.httpStatus ?? httpStatusForKind(e.kind);
}

/** gRPC status code for anything thrown (unknown throws are INTERNAL). */
export function grpcCodeOf(error: unknown): number {
  return grpcCodeForKind(toTributaryError(error).kind);
}

/** The message a response carries for anything thrown: its text, cut to MAX_MESSAGE_BYTES. */
export function wireMessageOf(error: unknown): string {
  return boundMessage(toTributaryError(error).message);
}
