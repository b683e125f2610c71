import type { UntypedHandleCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { Errors, type TributaryError } from '../../errors.js';
import { grpcCodeOf, wireMessageOf } from '../../protocol/index.js';
import { GRPC_METHOD_CATEGORY, GRPC_STREAMING_METHODS } from './grpc-method-category.js';
import { headerMatches } from './header-matches.js';
import type { RestrictionTable } from './parse-restrictions.js';

type HeaderValue = string | Uint8Array | readonly (string | Uint8Array)[] | undefined;

/** Why a call to `method` is refused, or undefined when it may go on. */
export type GrpcGuard = (method: string, header: (key: string) => HeaderValue) => TributaryError | undefined;

const uncategorized = (method: string) =>
  Errors.restrictCategoryMissing(`gRPC method ${method}`, 'src/frontend/restrict/grpc-method-category.ts');

/**
 * The check a call goes through before its handler sees it, independent of the transport (it
 * only needs a way to read a header). Refusals are made once per category; a method missing
 * from GRPC_METHOD_CATEGORY is refused (fail closed) rather than served.
 */
export function grpcGuard(table: RestrictionTable): GrpcGuard {
  const refusals = new Map([...table].map(([category, r]) => [category, Errors.restricted('protocol', r.header)]));
  return (method, header) => {
    const category = GRPC_METHOD_CATEGORY[method];
    if (!category) return uncategorized(method);
    const r = table.get(category);
    if (!r || headerMatches(r, header(r.key))) return undefined;
    return refusals.get(category);
  };
}

interface GrpcJsCall { metadata: { get(key: string): (string | Buffer)[] }; emit(event: 'error', e: unknown): boolean }

const statusOf = (e: TributaryError) => ({ code: grpcCodeOf(e), details: wireMessageOf(e), message: wireMessageOf(e) });

/**
 * grpc-js handlers with the guard in front of every method of a restricted category. Every
 * method must have a category (checked here, at start); open methods keep their handler as it
 * is, so an unrestricted server pays nothing per call.
 */
export function restrictGrpcHandlers(table: RestrictionTable, impl: UntypedServiceImplementation): UntypedServiceImplementation {
  for (const method of Object.keys(impl)) if (!GRPC_METHOD_CATEGORY[method]) throw uncategorized(method);
  const guard = grpcGuard(table);
  const out: UntypedServiceImplementation = {};
  for (const [method, handler] of Object.entries(impl)) {
    if (!table.has(GRPC_METHOD_CATEGORY[method]!)) {
      out[method] = handler;
      continue;
    }
    const refusal = (call: GrpcJsCall) => guard(method, (key) => call.metadata.get(key));
    const stream = (call: GrpcJsCall) => {
      const e = refusal(call);
      // grpc-js ends a server stream with the status of an error emitted on it.
      if (e) call.emit('error', statusOf(e));
      else (handler as (c: GrpcJsCall) => void)(call);
    };
    const unary = (call: GrpcJsCall, callback: (err: unknown) => void) => {
      const e = refusal(call);
      if (e) callback(statusOf(e));
      else (handler as (c: GrpcJsCall, cb: (err: unknown) => void) => void)(call, callback);
    };
    out[method] = (GRPC_STREAMING_METHODS.has(method) ? stream : unary) as unknown as UntypedHandleCall;
  }
  return out;
}
