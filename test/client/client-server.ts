/**
 * The real server (createServer) on a temporary repository: test/fixtures/http (identity models,
 * the decoupled `streamer`, `slow`, `gen`) plus this folder's `ticker`/`tick`, behind the real
 * HTTP and gRPC front ends on 127.0.0.1 port 0.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type Server } from '../../src/server/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import type { RequestRecord } from '../../src/model/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface ClientTestServer {
  server: Server;
  httpUrl: string;
  grpcAddress: string;
  repo: string;
  /** Per-request records of `model` from now on (success, reason), until `stop()`. */
  record(model: string): { records: RequestRecord[]; stop(): void };
  close(): Promise<void>;
}

export async function startClientTestServer(): Promise<ClientTestServer> {
  const repo = mkdtempSync(join(tmpdir(), 'tributary-client-'));
  cpSync(join(root, 'test/fixtures/http'), repo, { recursive: true });
  cpSync(join(root, 'test/client/fixtures'), repo, { recursive: true });
  const server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  const grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
  return {
    server, repo,
    httpUrl: `http://127.0.0.1:${http.port}`,
    grpcAddress: `127.0.0.1:${grpc.port}`,
    record(model) {
      const records: RequestRecord[] = [];
      const stop = server.addListener({ onRequest: (r) => { if (r.model === model) records.push(r); } });
      return { records, stop };
    },
    async close() {
      await grpc.close();
      await http.close();
      await server.close();
      rmSync(repo, { recursive: true, force: true });
    },
  };
}

/** Poll until `cond` holds, failing after `ms`. */
export async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
