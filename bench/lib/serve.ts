/**
 * Child-process entry for benchmarks: the server must not share an event loop with the load
 * generator. argv[2] is JSON ServeOptions; prints one JSON line {http, metrics} once listening;
 * exits when stdin closes (the parent died or called close()).
 */
import { createServer } from '../../src/server/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { startMetricsServer } from '../../src/metrics/index.js';
import { setLogSink } from '../../src/logger.js';

export interface ServeOptions { modelRepository: string; loadModels?: string[]; metricsConfig?: Record<string, string> }

const opts = JSON.parse(process.argv[2] ?? '{}') as ServeOptions;
setLogSink(() => {}); // load logs would interleave with the report
const server = await createServer({ modelRepository: opts.modelRepository, modelControlMode: 'explicit', loadModels: opts.loadModels ?? ['*'] });
const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
const metrics = await startMetricsServer(server, { port: 0, host: '127.0.0.1', ...(opts.metricsConfig ? { config: opts.metricsConfig } : {}) });
process.stdout.write(JSON.stringify({ http: http.port, metrics: metrics.port }) + '\n');
const stop = async () => {
  await http.close();
  await metrics.close();
  await server.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
