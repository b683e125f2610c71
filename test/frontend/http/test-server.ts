/**
 * Starts the real server (createServer) on a temporary copy of test/fixtures/http, plus the ORT
 * identity model from build/models when it has been generated, behind the real HTTP front end on
 * 127.0.0.1 port 0.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '../../../src/server/index.js';
import { startHttpServer, type HttpServerOptions } from '../../../src/frontend/http/index.js';
import type { Server } from '../../../src/server/types.js';

const root = new URL('../../../', import.meta.url).pathname;
export const ORT_IDENTITY = join(root, 'build/models/identity_fp32.onnx');

export interface TestServer {
  server: Server;
  base: string;
  repo: string;
  hasOnnx: boolean;
  close(): Promise<void>;
}

export async function startTestServer(options: Partial<HttpServerOptions> = {}): Promise<TestServer> {
  const repo = mkdtempSync(join(tmpdir(), 'tributary-http-'));
  cpSync(join(root, 'test/fixtures/http'), repo, { recursive: true });
  const hasOnnx = existsSync(ORT_IDENTITY);
  if (hasOnnx) {
    mkdirSync(join(repo, 'onnx_identity/1'), { recursive: true });
    cpSync(ORT_IDENTITY, join(repo, 'onnx_identity/1/model.onnx'));
    writeFileSync(join(repo, 'onnx_identity/config.pbtxt'), [
      'name: "onnx_identity"', 'platform: "onnxruntime_onnx"', 'max_batch_size: 8',
      'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]',
      'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]', '',
    ].join('\n'));
  }
  const server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', ...options });
  return {
    server, repo, hasOnnx,
    base: `http://127.0.0.1:${http.port}`,
    async close() {
      await http.close();
      await server.close();
      rmSync(repo, { recursive: true, force: true });
    },
  };
}
