import type { ErrorKind } from '../../../src/errors.js';
import type { WireError } from './wire.js';

export type { ErrorKind };

// The server's ERROR_KINDS, spelled out: a value import would bundle the whole error catalog
// into every script. The element type keeps each entry one of the server's kinds.
const KINDS = new Set<ErrorKind>(['UNKNOWN', 'INTERNAL', 'NOT_FOUND', 'INVALID_ARG', 'UNAVAILABLE', 'UNSUPPORTED', 'ALREADY_EXISTS', 'CANCELLED']);

export class ModelError extends Error {
  readonly kind: ErrorKind;
  readonly code?: string;
  constructor(message: string, kind: ErrorKind = 'INTERNAL', code?: string) {
    super(message);
    this.name = 'ModelError';
    this.kind = KINDS.has(kind) ? kind : 'INTERNAL';
    if (code !== undefined) this.code = code;
  }

  static fromWire(e: WireError): ModelError {
    return new ModelError(e.message, (e.kind ?? 'INTERNAL') as ErrorKind, e.code);
  }
}

/** Anything thrown, as the host expects it (the stack is mapped back to model.ts on the host). */
export function errorToWire(e: unknown): WireError {
  if (e instanceof ModelError) {
    return { message: e.message, name: e.name, stack: e.stack, kind: e.kind, ...(e.code ? { code: e.code } : {}) };
  }
  if (e instanceof Error) return { message: e.message, name: e.name, stack: e.stack };
  return { message: `non-Error value thrown: ${String(e)}` };
}
