import { createWriteStream } from 'node:fs';
import { createSharedMemoryRegistry } from '../frontend/shm/index.js';
import { startGrpcServer } from '../frontend/grpc/index.js';
import { startGrpcH2Server } from '../frontend/grpc-h2/index.js';
import { startHttpServer } from '../frontend/http/index.js';
import { createLogger, setLogSink, updateLogSettings } from '../logger.js';
import { startMetricsServer } from '../metrics/index.js';
import { createServer } from '../server/index.js';
import { boolFlag, intFlag, listFlag, parseFlags, portFlag, type FlagSpec } from './flags.js';
import { Errors } from '../errors.js';

export const SERVE_FLAGS: FlagSpec = {
  'model-repository': { type: 'string', multiple: true },
  'model-store': { type: 'string', multiple: true },
  'model-control-mode': { type: 'string' },
  'load-model': { type: 'string', multiple: true },
  'repository-poll-secs': { type: 'string' },
  'strict-model-config': { type: 'string' },
  'strict-readiness': { type: 'string' },
  'exit-on-error': { type: 'string' },
  'allow-http': { type: 'string' },
  'allow-grpc': { type: 'string' },
  'allow-metrics': { type: 'string' },
  'http-port': { type: 'string' },
  'grpc-port': { type: 'string' },
  'metrics-port': { type: 'string' },
  'http-address': { type: 'string' },
  'grpc-address': { type: 'string' },
  'metrics-address': { type: 'string' },
  'metrics-config': { type: 'string', multiple: true },
  'http-body-limit': { type: 'string' },
  'grpc-max-message-bytes': { type: 'string' },
  'grpc-implementation': { type: 'string' },
  'enable-system-shared-memory': { type: 'string' },
  'log-verbose': { type: 'string' },
  'log-info': { type: 'string' },
  'log-warning': { type: 'string' },
  'log-error': { type: 'string' },
  'log-format': { type: 'string' },
  'log-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

export const SERVE_HELP = `Usage: tributary serve --model-repository=<dir> [options]

Serve a model repository over HTTP (KServe v2 + Triton extensions), gRPC and Prometheus metrics.
Flags follow tritonserver's names; each takes --flag=value or --flag value.

  --model-repository <dir>        repository directory (repeatable)
  --model-control-mode <mode>     none (load all at start, default) | explicit | poll
  --load-model <name>             with explicit mode: load this model at start (repeatable; '*' = all)
  --repository-poll-secs <n>      with poll mode: rescan interval (default 15)
  --strict-model-config <bool>    require complete configs; false (default) auto-completes from model files
  --exit-on-error <bool>          exit if a model fails to load at start (default false)
  --http-port <n>                 HTTP port (default 8000; 0 = any free port)
  --grpc-port <n>                 gRPC port (default 8001)
  --metrics-port <n>              Prometheus metrics port (default 8002)
  --http-address, --grpc-address, --metrics-address <addr>   listen addresses (default 0.0.0.0)
  --allow-http, --allow-grpc, --allow-metrics <bool>          turn a front end off (default true)
  --metrics-config <k=v>          summary_latencies=true, summary_quantiles=0.5:0.05,..., histogram_latencies=true (repeatable)
  --http-body-limit <bytes>       largest HTTP request body (default 2147483647)
  --grpc-max-message-bytes <n>    largest gRPC message either way (default 2147483647)
  --grpc-implementation <impl>    grpc-js (default) | http2: the lean node:http2 transport, same service
  --enable-system-shared-memory <bool>  allow the system shared-memory extension (default false)
  --log-verbose <n>               verbose log level (default 0)
  --log-info, --log-warning, --log-error <bool>
  --log-format <default|ISO8601>
  --log-file <path>               write the log to a file instead of stderr
`;

/** `tributary serve`: start the server and its front ends; resolves when it is stopped. */
export async function serve(argv: readonly string[]): Promise<number> {
  const { values: f } = parseFlags('serve', argv, SERVE_FLAGS);
  if (f.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const repos = [...listFlag(f['model-repository']), ...listFlag(f['model-store'])];
  if (repos.length === 0) throw Errors.invalidArg(`tributary serve: --model-repository is required; see 'tributary serve --help'`);
  const mode = String(f['model-control-mode'] ?? 'none');
  if (!['none', 'explicit', 'poll'].includes(mode)) throw Errors.invalidArg(`--model-control-mode must be none, explicit or poll, got '${mode}'`);
  const format = String(f['log-format'] ?? 'default');
  if (format !== 'default' && format !== 'ISO8601') throw Errors.invalidArg(`--log-format must be default or ISO8601, got '${format}'`);
  if (f['log-file']) {
    const out = createWriteStream(String(f['log-file']), { flags: 'a' });
    setLogSink((line) => out.write(line + '\n'));
  }
  updateLogSettings({
    log_file: String(f['log-file'] ?? ''),
    log_verbose_level: intFlag('log-verbose', f['log-verbose'], 0),
    log_info: boolFlag('log-info', f['log-info'], true),
    log_warning: boolFlag('log-warning', f['log-warning'], true),
    log_error: boolFlag('log-error', f['log-error'], true),
    log_format: format,
  });
  const metricsConfig: Record<string, string> = {};
  for (const kv of listFlag(f['metrics-config'])) {
    const i = kv.indexOf('=');
    if (i <= 0) throw Errors.invalidArg(`--metrics-config expects key=value, got '${kv}'`);
    metricsConfig[kv.slice(0, i)] = kv.slice(i + 1);
  }
  // Every flag is checked before any model loads, so a typo fails fast with exit 2.
  const httpPort = portFlag('http-port', f['http-port'], 8000);
  const grpcPort = portFlag('grpc-port', f['grpc-port'], 8001);
  const metricsPort = portFlag('metrics-port', f['metrics-port'], 8002);
  const httpHost = String(f['http-address'] ?? '0.0.0.0');
  const grpcHost = String(f['grpc-address'] ?? '0.0.0.0');
  const metricsHost = String(f['metrics-address'] ?? '0.0.0.0');
  const shmEnabled = boolFlag('enable-system-shared-memory', f['enable-system-shared-memory'], false);
  const allowHttp = boolFlag('allow-http', f['allow-http'], true);
  const allowGrpc = boolFlag('allow-grpc', f['allow-grpc'], true);
  const allowMetrics = boolFlag('allow-metrics', f['allow-metrics'], true);
  const exitOnError = boolFlag('exit-on-error', f['exit-on-error'], false);
  const bodyLimit = intFlag('http-body-limit', f['http-body-limit'], 2147483647, 1);
  const grpcMaxBytes = intFlag('grpc-max-message-bytes', f['grpc-max-message-bytes'], 2147483647, 1);
  const grpcImpl = String(f['grpc-implementation'] ?? 'grpc-js');
  if (grpcImpl !== 'grpc-js' && grpcImpl !== 'http2') throw Errors.invalidArg(`--grpc-implementation must be grpc-js or http2, got '${grpcImpl}'`);
  const pollSecs = intFlag('repository-poll-secs', f['repository-poll-secs'], 15);
  const strict = boolFlag('strict-model-config', f['strict-model-config'], false);
  boolFlag('strict-readiness', f['strict-readiness'], true); // accepted for tritonserver compatibility; readiness is always strict
  const log = createLogger('serve');

  const server = await createServer({
    modelRepository: repos,
    modelControlMode: mode as 'none' | 'explicit' | 'poll',
    loadModels: listFlag(f['load-model']),
    repositoryPollSecs: pollSecs,
    strictModelConfig: strict,
    extensions: shmEnabled ? ['system_shared_memory'] : [],
  });
  const index = await server.repositoryIndex();
  for (const m of index) log.info(`model '${m.name}'${m.version ? ` version ${m.version}` : ''}: ${m.state}${m.reason ? ` (${m.reason})` : ''}`);
  if (exitOnError && index.some((m) => m.state !== 'READY' && m.reason !== 'unloaded')) {
    await server.close();
    log.error('a model failed to load and --exit-on-error=true');
    return 1;
  }
  const sharedMemory = shmEnabled ? createSharedMemoryRegistry() : undefined;
  const closers: (() => Promise<void>)[] = [];
  const shutdown = async () => {
    for (const c of closers) await c().catch(() => undefined);
    await server.close();
  };
  try {
    if (allowHttp) {
      const h = await startHttpServer(server, {
        port: httpPort, host: httpHost, bodyLimit,
        ...(sharedMemory ? { sharedMemory } : {}),
      });
      closers.push(h.close);
      log.info(`HTTP (KServe v2) listening on ${httpHost}:${h.port}`);
    }
    if (allowGrpc) {
      const g = await (grpcImpl === 'http2' ? startGrpcH2Server : startGrpcServer)(server, {
        port: grpcPort, host: grpcHost, maxMessageBytes: grpcMaxBytes,
        ...(sharedMemory ? { sharedMemory } : {}),
      });
      closers.push(g.close);
      log.info(`gRPC (inference.GRPCInferenceService) listening on ${grpcHost}:${g.port}`);
    }
    if (allowMetrics) {
      const m = await startMetricsServer(server, { port: metricsPort, host: metricsHost, config: metricsConfig });
      closers.push(m.close);
      log.info(`metrics listening on ${metricsHost}:${m.port}/metrics`);
    }
  } catch (e) {
    // A front end that cannot start (port in use) must not leave the others holding the process.
    await shutdown();
    throw e;
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  log.info('stopping');
  await shutdown();
  return 0;
}
