/**
 * The one error the client SDK throws for a failed call: the server's own message, with the HTTP
 * status or gRPC status code it came with, and the Triton error kind those map back to (the
 * inverse of protocol/status-table.ts, so code can branch on `kind` whatever the transport).
 */
import type { ErrorKind } from '../errors.js';
import { STATUS_TABLE } from '../protocol/index.js';

const KIND_BY_HTTP: Readonly<Record<number, ErrorKind>> = {
  400: 'INVALID_ARG', 404: 'NOT_FOUND', 413: 'INVALID_ARG', 500: 'INTERNAL', 501: 'UNSUPPORTED', 503: 'UNAVAILABLE',
};

const KIND_BY_GRPC = new Map<number, ErrorKind>(
  (Object.entries(STATUS_TABLE) as [ErrorKind, { grpc: number }][]).map(([kind, row]) => [row.grpc, kind]),
);

export interface ClientErrorInit {
  /** HTTP status (HTTP client). */
  status?: number;
  /** gRPC status code (gRPC client). */
  code?: number;
  /** When neither says it (no connection: UNAVAILABLE). */
  kind?: ErrorKind;
  cause?: unknown;
}

export class ClientError extends Error {
  readonly status?: number;
  readonly code?: number;
  readonly kind: ErrorKind;

  constructor(message: string, init: ClientErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ClientError';
    if (init.status !== undefined) this.status = init.status;
    if (init.code !== undefined) this.code = init.code;
    this.kind = init.kind ?? (init.status !== undefined ? KIND_BY_HTTP[init.status] ?? (init.status >= 500 ? 'INTERNAL' : 'UNKNOWN')
      : init.code !== undefined ? KIND_BY_GRPC.get(init.code) ?? 'UNKNOWN'
        : 'UNKNOWN');
  }
}
