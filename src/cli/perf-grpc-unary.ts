/**
 * perf's load for plain unary gRPC requests: ModelInfer on node's own HTTP/2 client, each data
 * step's request serialized and framed once. grpc-js's client spends about as much CPU on a call as
 * the server spends answering it, and on one core it tops out near 4,000 calls a second: perf was
 * measuring its own client (docs/PERFORMANCE.md). Only what perf needs of an answer is read: the
 * status in the trailers, with the server's message when it is an error; outputs are not decoded.
 *
 * perf uses it when a request needs nothing per call (no sequence flags, no stream) and the URL is
 * a plain `host:port`; the SDK client serves every other case.
 */
import http2, { type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { ClientError, encodeModelInferMessage, type InferOptions, type Tensor } from '../client/index.js';

const PATH = '/inference.GRPCInferenceService/ModelInfer';
/** `host:port`, a bracketed IPv6 address with its port, or a host alone (gRPC's default port then). */
const PLAIN_ADDRESS = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

export interface UnaryLoad {
  /** One ModelInfer with the request of data step `step` (modulo the steps); resolves on an OK status. */
  send(step: number): Promise<void>;
  close(): void;
}

/** Whether `address` is one this load can dial (anything else goes through the SDK client). */
export function plainGrpcAddress(address: string): boolean {
  return PLAIN_ADDRESS.test(address);
}

/** The call's error from its status headers or trailers, or undefined for OK. */
function statusError(headers: IncomingHttpHeaders): ClientError | undefined {
  const status = Number(headers['grpc-status']);
  if (status === 0) return undefined;
  const raw = headers['grpc-message'];
  let message = typeof raw === 'string' ? raw : `ModelInfer failed with gRPC status ${headers['grpc-status'] ?? 'missing'}`;
  try {
    message = decodeURIComponent(message);
  } catch {
    // Not percent-encoded after all: keep it as sent.
  }
  return new ClientError(message, { code: Number.isInteger(status) ? status : 2 });
}

export function grpcUnaryLoad(address: string, model: string, steps: readonly (readonly Tensor[])[], options: (step: number) => InferOptions): UnaryLoad {
  const frames = steps.map((inputs, i) => encodeModelInferMessage(model, inputs, options(i)));
  const authority = `http://${address.includes(':') && !address.endsWith(']') ? address : `${address}:8001`}`;
  let session: ClientHttp2Session | undefined;
  const connect = (): ClientHttp2Session => {
    if (session && !session.closed && !session.destroyed) return session;
    const s = http2.connect(authority);
    // A failed connection fails its calls (their streams error); the next call dials again.
    s.on('error', () => undefined);
    s.once('close', () => { if (session === s) session = undefined; });
    return (session = s);
  };
  return {
    send: (step) => new Promise<void>((resolve, reject) => {
      const stream = connect().request({ ':method': 'POST', ':path': PATH, 'content-type': 'application/grpc', te: 'trailers' });
      let settled = false;
      const settle = (e: Error | undefined) => {
        if (settled) return;
        settled = true;
        if (e) reject(e);
        else resolve();
      };
      // A trailers-only answer (an error before any message) carries its status in the headers.
      stream.once('response', (headers) => { if (headers['grpc-status'] !== undefined) settle(statusError(headers)); });
      stream.once('trailers', (trailers) => settle(statusError(trailers)));
      stream.on('data', () => undefined);
      stream.once('error', (e) => settle(e));
      stream.once('close', () => settle(new ClientError(`ModelInfer: the stream closed without a status (HTTP/2 code ${stream.rstCode})`, { code: 14 })));
      stream.end(frames[step % frames.length]);
    }),
    close: () => session?.close(),
  };
}
