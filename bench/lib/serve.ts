/**
 * Child-process entry for benchmarks: the server must not share an event loop with the load
 * generator. argv[2] is JSON ServeOptions; prints one JSON line of ServePorts once listening;
 * exits when stdin closes (the parent died or called close()).
 */
import { createServer } from '../../src/server/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import { startMetricsServer } from '../../src/metrics/index.js';
import { setLogSink } from '../../src/logger.js';

export interface ServeOptions {
  modelRepository: string;
  loadModels?: string[];
  metricsConfig?: Record<string, string>;
  /** Start the gRPC front end too (besides HTTP and metrics). */
  grpc?: boolean;
  /**
   * Also start an HTTP (and, with `grpc`, a gRPC) front end with the direct /infer and ModelInfer
   * paths off, over the same server: the two paths side by side in one process.
   */
  routeTwins?: boolean;
}

export interface ServePorts { http: number; metrics: number; grpc?: number; httpRoute?: number; grpcRoute?: number }

const opts = JSON.parse(process.argv[2] ?? '{}') as ServeOptions;
setLogSink(() => {}); // load logs would interleave with the report
const server = await createServer({ modelRepository: opts.modelRepository, modelControlMode: 'explicit', loadModels: opts.loadModels ?? ['*'] });
const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
const metrics = await startMetricsServer(server, { port: 0, host: '127.0.0.1', ...(opts.metricsConfig ? { config: opts.metricsConfig } : {}) });
const grpc = opts.grpc ? await startGrpcServer(server, { port: 0, host: '127.0.0.1' }) : undefined;
const httpRoute = opts.routeTwins ? await startHttpServer(server, { port: 0, host: '127.0.0.1', directInfer: false }) : undefined;
const grpcRoute = opts.routeTwins && opts.grpc ? await startGrpcServer(server, { port: 0, host: '127.0.0.1', directInfer: false }) : undefined;
const ports: ServePorts = {
  http: http.port, metrics: metrics.port, ...(grpc ? { grpc: grpc.port } : {}),
  ...(httpRoute ? { httpRoute: httpRoute.port } : {}), ...(grpcRoute ? { grpcRoute: grpcRoute.port } : {}),
};
process.stdout.write(JSON.stringify(ports) + '\n');
const stop = async () => {
  await Promise.all([http.close(), metrics.close(), grpc?.close(), httpRoute?.close(), grpcRoute?.close()]);
  await server.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
