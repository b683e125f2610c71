/**
 * Tools for the gRPC attack tests: a raw HTTP/2 gRPC call (for framing no grpc-js client would
 * send), request messages built byte by byte, and `tributary serve` in a child process whose peak
 * resident memory (VmHWM) can be read, so the server's memory is measured apart from the client's.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { fileURLToPath } from 'node:url';
import { setLogSink } from '../../src/logger.js';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODEL_INFER = '/inference.GRPCInferenceService/ModelInfer';

/** Expected refusals are logged by the server; the tests check them through the client instead. */
export function quietLogs(): void {
  setLogSink(() => {});
}

const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n >= 128) { out.push((n % 128) | 128); n = Math.floor(n / 128); }
  out.push(n);
  return out;
};
/** A length-delimited protobuf field. */
export const field = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([tag, ...varint(body.length)]), body]);
/** A gRPC length-prefixed message: flag byte, 4-byte length (claimed, may differ from the payload), payload. */
export function frame(payload: Buffer, options: { compressed?: boolean; claimedLength?: number } = {}): Buffer {
  const head = Buffer.alloc(5);
  head[0] = options.compressed ? 1 : 0;
  head.writeUInt32BE(options.claimedLength ?? payload.length, 1);
  return Buffer.concat([head, payload]);
}

export interface RawAnswer { status: number | undefined; message: string; ms: number }

/**
 * One call on its own HTTP/2 connection: `chunks` are written, then the request side ends unless
 * `end` is false. Resolves with grpc-status and the decoded grpc-message once the server answers.
 */
export async function rawCall(port: number, chunks: Buffer[], options: { path?: string; headers?: Record<string, string>; end?: boolean } = {}): Promise<RawAnswer> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  const t0 = performance.now();
  try {
    return await new Promise<RawAnswer>((resolve, reject) => {
      const req = session.request({
        ':method': 'POST', ':path': options.path ?? MODEL_INFER, 'content-type': 'application/grpc', te: 'trailers', ...options.headers,
      });
      const settle = (h: http2.IncomingHttpHeaders) => {
        if (h['grpc-status'] === undefined) return;
        resolve({ status: Number(h['grpc-status']), message: decodeURIComponent(String(h['grpc-message'] ?? '')), ms: performance.now() - t0 });
      };
      req.on('response', settle);
      req.on('trailers', settle);
      req.on('data', () => {});
      req.on('error', reject);
      req.on('close', () => reject(new Error(`stream closed without a grpc-status (rst ${req.rstCode})`)));
      for (const c of chunks) req.write(c);
      if (options.end !== false) req.end();
    });
  } finally {
    session.destroy();
  }
}

export interface ServeChild {
  pid: number;
  grpcPort: number;
  /** Peak resident set size of the server process so far (bytes). */
  peakRss(): number;
  stop(): Promise<void>;
}

/** `tributary serve` with only the gRPC front end, on 127.0.0.1 port 0. */
export async function spawnGrpcServe(repo: string, args: readonly string[] = []): Promise<ServeChild> {
  const child = spawn(process.execPath, [BIN, 'serve', '--model-repository', repo, '--allow-http', 'false', '--allow-metrics', 'false',
    '--grpc-port', '0', '--grpc-address', '127.0.0.1', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not listen in 30 s:\n${out}`)), 30_000);
    const check = () => {
      const m = /gRPC \(inference\.GRPCInferenceService\) listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then(() => { clearTimeout(timer); reject(new Error(`serve exited:\n${out}`)); });
  }).catch(async (e) => { await stop(); throw e; });
  const peakRss = () => {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return Number(m![1]) * 1024;
  };
  return { pid: child.pid!, grpcPort: port, peakRss, stop };
}
