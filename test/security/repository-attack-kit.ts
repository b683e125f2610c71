/**
 * A real server (explicit model control, HTTP and gRPC on 127.0.0.1 port 0) over an on-disk
 * repository, with sentinel files outside it, for the repository path attacks:
 *   base/repo     the model repository (attack models are added by the test file)
 *   base/tmp      the server's TMPDIR, so upload directories can be watched without racing other
 *                 test processes
 *   outside       a separate temporary directory of sentinels: secret.txt (a unique marker),
 *                 secret.bin, model.onnx, vdir/1/model.onnx. Attack values name it, so messages
 *                 may echo it; they must never show base (the server's own directories).
 * `snapshot()` records every file under base except repo/, so a write or a new file anywhere
 * outside the repository shows up; upload directories in base/tmp must be gone after a failed load.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { status, type ServiceError } from '@grpc/grpc-js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { setLogSink } from '../../src/logger.js';
import { createServer, type LocalServer, type ServerOptions } from '../../src/server/index.js';
import { createTestClient, type TestClient } from '../frontend/grpc/grpc-client.js';

export const SECRET = `TRIBUTARY-SENTINEL-${process.pid}-${Date.now()}`;
/** secret.bin: four floats nobody would compute by accident (an ONNX model reading them would echo them). */
const SECRET_FLOATS = Float32Array.from([7331.5, -4242.25, 1e6 + 0.5, 31337]);

export interface Kit {
  base: string;
  repo: string;
  outside: string;
  tmp: string;
  server: LocalServer;
  grpc: TestClient;
  http(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string }>;
  /** Snapshot of everything outside the repository (and the server's TMPDIR listing). */
  snapshot(): Map<string, string>;
  close(): Promise<void>;
}

/** Every file under `dir` (not following links) as relative path -> content digest or link target. */
function walk(dir: string, root: string, out: Map<string, string>, skip: ReadonlySet<string>): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (skip.has(p)) continue;
    const rel = relative(root, p);
    if (e.isDirectory()) {
      out.set(`${rel}/`, 'dir');
      walk(p, root, out, skip);
    } else if (e.isFile()) {
      const s = statSync(p);
      out.set(rel, `${s.size}:${readFileSync(p).toString('base64')}`);
    } else {
      out.set(rel, 'other');
    }
  }
}

export async function startKit(setupRepo: (repo: string, outside: string) => void, options: Partial<ServerOptions> = {}): Promise<Kit> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tributary-attack-')));
  const repo = join(base, 'repo');
  const outside = realpathSync(mkdtempSync(join(tmpdir(), 'tributary-sentinel-')));
  const tmp = join(base, 'tmp');
  for (const d of [repo, outside, tmp, join(outside, 'vdir', '1')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `${SECRET}\nsecond line\n`);
  writeFileSync(join(outside, 'secret.bin'), new Uint8Array(SECRET_FLOATS.buffer));

  const savedTmp = process.env.TMPDIR;
  const restore = () => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(base, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  };
  process.env.TMPDIR = tmp;
  setLogSink(() => {}); // refusals are logged as errors; the assertions are on the wire
  let server: LocalServer | undefined;
  let httpHandle: HttpServerHandle | undefined;
  let grpcHandle: GrpcServerHandle | undefined;
  let client: TestClient | undefined;
  try {
    setupRepo(repo, outside);
    server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', ...options });
    httpHandle = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
    grpcHandle = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
    client = createTestClient(grpcHandle.port);
  } catch (e) {
    await httpHandle?.close();
    await server?.close();
    restore();
    throw e;
  }
  const port = httpHandle.port;
  const skip = new Set([repo]);
  return {
    base, repo, outside, tmp, server, grpc: client,
    http(method, path, body) {
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      return new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method, path, headers: data ? { 'content-type': 'application/json', 'content-length': data.length } : {} }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        });
        req.on('error', reject);
        req.end(data);
      });
    },
    snapshot() {
      const out = new Map<string, string>();
      walk(base, base, out, skip);
      walk(outside, join(outside, '..'), out, skip);
      // TMPDIR is shared with native libraries that keep logs there: names count, contents do not.
      for (const [k, v] of out) if (k.startsWith('tmp/') && k !== 'tmp/' && v !== 'dir') out.set(k, 'file');
      return out;
    },
    async close() {
      client?.close();
      await grpcHandle?.close();
      await httpHandle?.close();
      await server.close();
      restore();
    },
  };
}

/** Upload directories the server holds (in its TMPDIR). */
export function uploadDirs(kit: Kit): string[] {
  return readdirSync(kit.tmp).filter((d) => d.startsWith('tributary-load-'));
}

/** A refusal as both transports report it. */
export interface Refusal { transport: 'http' | 'grpc'; status: number; message: string }

/** A model name as one URL path segment; dots are escaped too, so '..' reaches the route as a name. */
const pathSegment = (name: string) => encodeURIComponent(name).replace(/\./g, '%2E');

export async function httpLoad(kit: Kit, name: string, parameters: Record<string, unknown>): Promise<Refusal> {
  const r = await kit.http('POST', `/v2/repository/models/${pathSegment(name)}/load`, { parameters });
  return { transport: 'http', status: r.status, message: r.status === 200 ? '' : (JSON.parse(r.text) as { error: string }).error };
}

export async function httpUnload(kit: Kit, name: string): Promise<Refusal> {
  const r = await kit.http('POST', `/v2/repository/models/${pathSegment(name)}/unload`, {});
  return { transport: 'http', status: r.status, message: r.status === 200 ? '' : (JSON.parse(r.text) as { error: string }).error };
}

async function grpcCall(kit: Kit, method: string, req: unknown): Promise<Refusal> {
  try {
    await kit.grpc.call(method, req);
    return { transport: 'grpc', status: status.OK, message: '' };
  } catch (e) {
    const err = e as ServiceError;
    return { transport: 'grpc', status: err.code, message: err.details };
  }
}

/** Load parameters as the HTTP JSON carries them: strings for `config`, base64 for `file:`. */
export type LoadParams = { config?: string; files?: Record<string, Uint8Array | string> };

export function httpParams(p: LoadParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (p.config !== undefined) out.config = p.config;
  for (const [k, v] of Object.entries(p.files ?? {})) out[`file:${k}`] = Buffer.from(v).toString('base64');
  return out;
}

export async function grpcLoad(kit: Kit, name: string, p: LoadParams): Promise<Refusal> {
  const parameters: Record<string, unknown> = {};
  if (p.config !== undefined) parameters.config = { string_param: p.config };
  for (const [k, v] of Object.entries(p.files ?? {})) parameters[`file:${k}`] = { bytes_param: Buffer.from(v) };
  return grpcCall(kit, 'RepositoryModelLoad', { model_name: name, parameters });
}

export async function grpcUnload(kit: Kit, name: string): Promise<Refusal> {
  return grpcCall(kit, 'RepositoryModelUnload', { model_name: name });
}

export async function load(kit: Kit, transport: 'http' | 'grpc', name: string, p: LoadParams): Promise<Refusal> {
  return transport === 'http' ? httpLoad(kit, name, httpParams(p)) : grpcLoad(kit, name, p);
}

export async function isReadyOverBoth(kit: Kit): Promise<[boolean, boolean]> {
  const h = await kit.http('GET', '/v2/health/ready');
  const g = await kit.grpc.call<{ ready: boolean }>('ServerReady', {});
  return [h.status === 200, g.ready === true];
}

/**
 * The whole verdict on one attack: refused with HTTP 400 / gRPC INVALID_ARGUMENT (the request's
 * content is at fault, so also where Triton's words are those of its INTERNAL poll failure) and a message
 * starting with `prefix`; the message shows none of the server's own paths (repository, upload
 * directories) nor the secret;
 * nothing outside the repository changed or appeared; no upload directory is left; readiness is
 * as it was.
 */
export async function assertRefused(kit: Kit, r: Refusal, prefix: string | RegExp, before: Map<string, string>, ready: [boolean, boolean] = [true, true]): Promise<void> {
  if (r.transport === 'http') assert.equal(r.status, 400, `HTTP status for: ${r.message}`);
  else assert.equal(r.status, status.INVALID_ARGUMENT, `gRPC code for: ${r.message}`);
  if (typeof prefix === 'string') assert.ok(r.message.startsWith(prefix), `message should start with ${JSON.stringify(prefix)}:\n${r.message}`);
  else assert.match(r.message, prefix);
  for (const leak of [kit.base, kit.tmp, SECRET, 'second line']) {
    assert.ok(!r.message.includes(leak), `message leaks ${JSON.stringify(leak)}: ${r.message}`);
  }
  assert.ok(!/tributary-load-/.test(r.message), `message names an upload directory: ${r.message}`);
  assert.deepEqual(kit.snapshot(), before, 'nothing outside the repository was written, created or removed');
  assert.deepEqual(uploadDirs(kit), [], 'no upload directory is left behind');
  assert.deepEqual(await isReadyOverBoth(kit), ready, 'readiness unchanged');
}
