import type { ErrorKind } from '../../../src/errors.js';
import { boundedStack, boundedText } from './bounded-text.js';
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

/**
 * Anything thrown, as the host expects it (the stack is mapped back to model.ts on the host), its
 * text cut before it is copied out (bounded-text.ts).
 */
export function errorToWire(e: unknown): WireError {
  if (e instanceof Error) {
    const message = String(e.message);
    const cut = boundedText(message);
    const stack = boundedStack(typeof e.stack === 'string' ? e.stack : undefined, message, cut);
    const wire: WireError = { message: cut, name: boundedText(String(e.name), 256), ...(stack === undefined ? {} : { stack }) };
    if (e instanceof ModelError) {
      wire.kind = e.kind;
      if (e.code) wire.code = boundedText(e.code, 256);
    }
    return wire;
  }
  return { message: boundedText(`non-Error value thrown: ${String(e)}`) };
}
