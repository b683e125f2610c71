/**
 * Child-process entry for benchmarks: the server must not share an event loop with the load
 * generator. argv[2] is JSON ServeOptions; prints one JSON line of ServePorts once listening;
 * exits when stdin closes (the parent died or called close()).
 */
import { createServer } from '../../src/server/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import { startGrpcH2Server } from '../../src/frontend/grpc-h2/index.js';
import { startMetricsServer } from '../../src/metrics/index.js';
import { setLogSink } from '../../src/logger.js';

export type GrpcImplementation = 'grpc-js' | 'http2';

export interface ServeOptions {
  modelRepository: string;
  loadModels?: string[];
  metricsConfig?: Record<string, string>;
  /** gRPC front ends to start besides HTTP and metrics (each on its own port). */
  grpc?: GrpcImplementation[];
}

export interface ServePorts { http: number; metrics: number; grpc: Partial<Record<GrpcImplementation, number>> }

const opts = JSON.parse(process.argv[2] ?? '{}') as ServeOptions;
setLogSink(() => {}); // load logs would interleave with the report
const server = await createServer({ modelRepository: opts.modelRepository, modelControlMode: 'explicit', loadModels: opts.loadModels ?? ['*'] });
const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
const metrics = await startMetricsServer(server, { port: 0, host: '127.0.0.1', ...(opts.metricsConfig ? { config: opts.metricsConfig } : {}) });
const start = { 'grpc-js': startGrpcServer, http2: startGrpcH2Server };
const grpc = await Promise.all((opts.grpc ?? []).map(async (impl) => [impl, await start[impl](server, { port: 0, host: '127.0.0.1' })] as const));
const ports: ServePorts = { http: http.port, metrics: metrics.port, grpc: Object.fromEntries(grpc.map(([impl, g]) => [impl, g.port])) };
process.stdout.write(JSON.stringify(ports) + '\n');
const stop = async () => {
  await Promise.all([http.close(), metrics.close(), ...grpc.map(([, g]) => g.close())]);
  await server.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
