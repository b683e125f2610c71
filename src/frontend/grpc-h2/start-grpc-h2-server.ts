/**
 * The lean gRPC transport: the grpc-js front end's service and handlers over `node:http2` (h2c)
 * with the hand-written ModelInferRequest decoder and ModelInfer* response encoders. Opt-in
 * (`tributary serve --grpc-implementation=http2`); grpc-js stays the default.
 *
 * Why it exists (PERFORMANCE.md "gRPC", T4), from bench/workloads/grpc-h2.ts, both front ends in
 * one child process over one Server, side by side in one run, 2 shared cores under other load
 * (so absolute numbers are noisy; ratios over two runs):
 *   grpc-js client           grpc-js server          http2 server          ratio
 *   W1 [1,16] c=1  p50       1077-1149 us            555-619 us            1.7-2.1x
 *   W1 [1,16] c=64 infer/s   4.1k-4.5k               4.9k-5.9k             1.2-1.3x (client-bound: ~130 us client CPU/req)
 *   W1 c=64 server CPU/req   93-118 us               72-78 us              1.3-1.5x
 *   W2 16 MB c=1 infer/s     6-7                     8                     1.25-1.36x
 *   lean node:http2 client: W1 c=64 9.7k/7.7k vs 9.6k/10.3k (0.98-1.35x); W2 1.1-1.5x.
 * It clears the 1.5x bar on W1 c=1 latency only; throughput gains stay below 1.5x because the
 * client, the model path (16 MB identity costs ~33 ms in-process) and node's HTTP/2 itself
 * dominate. Every test in test/frontend/grpc/ also passes against this server.
 */
import http2, { type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import {
  createTraceSettings, healthHandlers, loadProtos, modelInferHandler, modelStreamInferHandler, repositoryHandlers,
  serverHandlers, settingsHandlers, sharedMemoryHandlers, type GrpcServerHandle, type GrpcServerOptions,
} from '../grpc/index.js';
import { decodeInferRequest, encodeInferResponse, encodeStreamInferResponse } from '../../protocol/grpc/index.js';
import type { ModelInferResponseMsg, ModelStreamInferResponseMsg } from '../../protocol/grpc/index.js';
import { createLogger } from '../../logger.js';
import type { Server } from '../../server/types.js';
import { createSharedMemoryRegistry } from '../shm/index.js';
import { createRouteTable } from './route-table.js';
import { serveRpc } from './serve-rpc.js';

const log = createLogger('grpc');
const MAX_MESSAGE = 2 ** 31 - 1;
const CLOSE_GRACE_MS = 1000;
/**
 * Flow-control windows. HTTP/2's default 64 KiB per stream and per connection would make a
 * 16 MB tensor wait for ~256 WINDOW_UPDATE round trips; these let a large message stream through.
 */
const STREAM_WINDOW = 8 * 1024 * 1024;
const SESSION_WINDOW = 64 * 1024 * 1024;

let protos: ReturnType<typeof loadProtos> | undefined;

/**
 * The same service as `startGrpcServer` (same handlers, same options), served over `node:http2`
 * (h2c) instead of grpc-js, with the hand-written ModelInferRequest decoder and response encoders.
 */
export async function startGrpcH2Server(server: Server, options: GrpcServerOptions): Promise<GrpcServerHandle> {
  protos ??= loadProtos();
  const ownShm = options.sharedMemory === undefined;
  const shm = options.sharedMemory ?? createSharedMemoryRegistry();
  const trace = options.traceSettings ?? createTraceSettings();
  const max = options.maxMessageBytes ?? MAX_MESSAGE;

  const routes = createRouteTable(protos, {
    'inference.GRPCInferenceService': {
      ...serverHandlers(server),
      ...repositoryHandlers(server),
      ...sharedMemoryHandlers(shm),
      ...settingsHandlers(trace),
      ModelInfer: modelInferHandler(server, shm),
      ModelStreamInfer: modelStreamInferHandler(server, shm),
    },
    'grpc.health.v1.Health': healthHandlers(server),
  }, {
    ModelInfer: { deserialize: decodeInferRequest, serialize: (m) => encodeInferResponse(m as ModelInferResponseMsg) },
    ModelStreamInfer: { deserialize: decodeInferRequest, serialize: (m) => encodeStreamInferResponse(m as ModelStreamInferResponseMsg) },
  });
  const limits = { maxReceiveBytes: max, maxSendBytes: max };

  const h2 = http2.createServer({
    settings: { initialWindowSize: STREAM_WINDOW, maxConcurrentStreams: 4096 },
    // In MB: buffered frames for in-flight messages count against it; refuse only far past `max`.
    maxSessionMemory: Math.max(64, Math.ceil((4 * max) / 2 ** 20)),
  });
  const sessions = new Set<Http2Session>();
  h2.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', (e) => log.verbose(1, `gRPC (http2) connection error: ${e.message}`));
    try {
      session.setLocalWindowSize(SESSION_WINDOW);
    } catch {
      session.once('connect', () => session.setLocalWindowSize(SESSION_WINDOW));
    }
  });
  h2.on('stream', (stream, headers) => serveRpc(stream, headers, routes, limits));

  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    h2.once('error', reject);
    h2.listen(options.port, host, () => { h2.off('error', reject); resolve(); });
  });
  const port = (h2.address() as AddressInfo).port;
  log.info(`Started GRPCInferenceService (http2) at ${host}:${port}`);

  return {
    port,
    close: () => new Promise<void>((resolve) => {
      const timer = setTimeout(() => { for (const s of sessions) s.destroy(); }, CLOSE_GRACE_MS);
      h2.close(() => {
        clearTimeout(timer);
        if (ownShm) shm.unregister();
        resolve();
      });
      for (const s of sessions) s.close();
    }),
  };
}
