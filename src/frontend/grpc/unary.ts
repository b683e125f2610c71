import type { handleUnaryCall, sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { toServiceError } from './service-error.js';

/** A unary handler from a function that returns (or resolves to) the response; throws become gRPC errors. */
export function unary<Req, Res>(fn: (request: Req, call: ServerUnaryCall<Req, Res>) => Res | Promise<Res>): handleUnaryCall<Req, Res> {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    let out: Res | Promise<Res>;
    try {
      out = fn(call.request, call);
    } catch (e) {
      callback(toServiceError(e));
      return;
    }
    if (out instanceof Promise) out.then((r) => callback(null, r), (e: unknown) => callback(toServiceError(e)));
    else callback(null, out);
  };
}
