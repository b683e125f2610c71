import { createWriteStream } from 'node:fs';
import { createSharedMemoryRegistry } from '../frontend/shm/index.js';
import { startGrpcServer } from '../frontend/grpc/index.js';
import { grpcOptionsFromFlags } from './grpc-flags.js';
import { startHttpServer } from '../frontend/http/index.js';
import { createDataPlane } from '../dataplane/index.js';
import { httpOptionsFromFlags } from './http-flags.js';
import { exposureWarnings, parseRestrictions } from '../frontend/restrict/index.js';
import { createLogger, setLogSink, updateLogSettings } from '../logger.js';
import { startMetricsServer } from '../metrics/index.js';
import { createServer } from '../server/index.js';
import { boolFlag, intFlag, listFlag, parseFlags, portFlag, type FlagSpec } from './flags.js';
import { Errors } from '../errors.js';

const SERVE_FLAGS: FlagSpec = {
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
  'http-max-input-size': { type: 'string' },
  'http-header-timeout-secs': { type: 'string' },
  'http-request-timeout-secs': { type: 'string' },
  'http-max-connections': { type: 'string' },
  'http-use-ssl': { type: 'string' },
  'http-use-ssl-mutual': { type: 'string' },
  'http-server-cert': { type: 'string' },
  'http-server-key': { type: 'string' },
  'http-root-cert': { type: 'string' },
  'grpc-max-input-size': { type: 'string' },
  'grpc-max-connections': { type: 'string' },
  'grpc-max-concurrent-streams': { type: 'string' },
  'grpc-use-ssl': { type: 'string' },
  'grpc-use-ssl-mutual': { type: 'string' },
  'grpc-server-cert': { type: 'string' },
  'grpc-server-key': { type: 'string' },
  'grpc-root-cert': { type: 'string' },
  'allow-client-shm': { type: 'string' },
  'http-restricted-api': { type: 'string', multiple: true },
  'grpc-restricted-protocol': { type: 'string', multiple: true },
  'log-verbose': { type: 'string' },
  'log-info': { type: 'string' },
  'log-warning': { type: 'string' },
  'log-error': { type: 'string' },
  'log-format': { type: 'string' },
  'log-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const SERVE_HELP = `Usage: tributary serve --model-repository=<dir> [options]

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
  --http-max-input-size <bytes>   largest HTTP request body, as sent and once decompressed (gzip/deflate are
                                  inflated only up to it); more is 413 (default 67108864 = 64 MiB, as
                                  tritonserver). Replaces --http-body-limit
  --http-header-timeout-secs <n>  time a client has to send a request line and headers, counted from the
                                  connection or from the request's first byte; then 408 and close (default
                                  60; 0 = no limit). Also bounds the TLS handshake. An idle kept-alive
                                  connection closes after 65 s
  --http-request-timeout-secs <n> time a client has to send a whole request, headers and body; a trickled
                                  body is cut off with 408 (default 300; 0 = no limit). Time spent
                                  answering is not counted
  --http-max-connections <n>      open HTTP connections at once; more are closed on arrival (default 1024;
                                  0 = no limit)
  --http-use-ssl <bool>           serve HTTPS with --http-server-cert and --http-server-key (default false)
  --http-use-ssl-mutual <bool>    HTTPS that also requires a client certificate signed by --http-root-cert;
                                  implies --http-use-ssl (default false)
  --http-server-cert <file>       PEM server certificate (chain)
  --http-server-key <file>        PEM server private key
  --http-root-cert <file>         PEM CA certificate(s) that client certificates must chain to
  --grpc-max-input-size <bytes>   largest gRPC request message, as sent and once decompressed; more is
                                  RESOURCE_EXHAUSTED (default: --http-max-input-size's value, 64 MiB; at most
                                  2147483647). tritonserver has no such flag (it fixes 2 GiB); this replaces
                                  --grpc-max-message-bytes. Responses may reach 2147483647 bytes
  --grpc-max-connections <n>      open gRPC connections at once; more are closed on arrival (default 1024)
  --grpc-max-concurrent-streams <n>  calls in flight on one gRPC connection (default 128)
  --grpc-use-ssl <bool>           serve gRPC over TLS with --grpc-server-cert and --grpc-server-key (default false)
  --grpc-use-ssl-mutual <bool>    TLS that also requires a client certificate signed by --grpc-root-cert;
                                  implies --grpc-use-ssl (default false)
  --grpc-server-cert <file>       PEM server certificate (chain)
  --grpc-server-key <file>        PEM server private key
  --grpc-root-cert <file>         PEM CA certificate(s) that client certificates must chain to
  --allow-client-shm <bool>       let clients register system shared memory regions (/dev/shm keys) and
                                  place tensors in them (default false)
  --http-restricted-api <categories>:<header>=<value>
                                  HTTP requests of these categories must carry header <header> with <value>,
                                  else 403 (repeatable, one group per category). Categories: health, metadata,
                                  inference, shared-memory, model-config, model-repository, statistics, trace,
                                  logging
  --grpc-restricted-protocol <categories>:<key>=<value>
                                  the same for gRPC: calls must carry metadata triton-grpc-protocol-<key>
                                  with <value>, else UNAVAILABLE
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
  if (repos.length === 0) throw Errors.cliRepositoryRequired();
  const mode = String(f['model-control-mode'] ?? 'none');
  if (!['none', 'explicit', 'poll'].includes(mode)) throw Errors.cliFlagChoice('model-control-mode', 'none, explicit or poll', mode);
  const format = String(f['log-format'] ?? 'default');
  if (format !== 'default' && format !== 'ISO8601') throw Errors.cliFlagChoice('log-format', 'default or ISO8601', format);
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
    if (i <= 0) throw Errors.cliFlagExpects('metrics-config', 'key=value', kv);
    metricsConfig[kv.slice(0, i)] = kv.slice(i + 1);
  }
  // Every flag is checked before any model loads, so a typo fails fast with exit 2.
  const httpPort = portFlag('http-port', f['http-port'], 8000);
  const grpcPort = portFlag('grpc-port', f['grpc-port'], 8001);
  const metricsPort = portFlag('metrics-port', f['metrics-port'], 8002);
  const httpHost = String(f['http-address'] ?? '0.0.0.0');
  const grpcHost = String(f['grpc-address'] ?? '0.0.0.0');
  const metricsHost = String(f['metrics-address'] ?? '0.0.0.0');
  const shmEnabled = boolFlag('allow-client-shm', f['allow-client-shm'], false);
  const httpRestrictions = parseRestrictions('http-restricted-api', listFlag(f['http-restricted-api']));
  const grpcRestrictions = parseRestrictions('grpc-restricted-protocol', listFlag(f['grpc-restricted-protocol']));
  const allowHttp = boolFlag('allow-http', f['allow-http'], true);
  const allowGrpc = boolFlag('allow-grpc', f['allow-grpc'], true);
  const allowMetrics = boolFlag('allow-metrics', f['allow-metrics'], true);
  const exitOnError = boolFlag('exit-on-error', f['exit-on-error'], false);
  const pollSecs = intFlag('repository-poll-secs', f['repository-poll-secs'], 15);
  const strict = boolFlag('strict-model-config', f['strict-model-config'], false);
  boolFlag('strict-readiness', f['strict-readiness'], true); // accepted for tritonserver compatibility; readiness is always strict
  const log = createLogger('serve');
  const grpcOptions = allowGrpc ? grpcOptionsFromFlags(f, log) : {};
  const httpOptions = allowHttp ? httpOptionsFromFlags(f, log) : {};
  const exposed = exposureWarnings(mode, [
    ...(allowHttp ? [{ name: 'HTTP' as const, host: httpHost, restrictions: httpRestrictions }] : []),
    ...(allowGrpc ? [{ name: 'gRPC' as const, host: grpcHost, restrictions: grpcRestrictions }] : []),
  ]);
  for (const w of exposed) log.warn(w);

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
  // One data plane for both front ends: one trace-settings store, one extension list.
  const dataPlane = createDataPlane(server, sharedMemory ? { sharedMemory } : {});
  const closers: (() => Promise<void>)[] = [];
  const shutdown = async () => {
    for (const c of closers) await c().catch(() => undefined);
    await server.close();
  };
  try {
    if (allowHttp) {
      const h = await startHttpServer(server, {
        ...httpOptions, port: httpPort, host: httpHost, restrictions: httpRestrictions,
        ...(sharedMemory ? { sharedMemory } : {}), dataPlane,
      });
      closers.push(h.close);
      log.info(`HTTP (KServe v2) listening on ${httpHost}:${h.port}`);
    }
    if (allowGrpc) {
      const g = await startGrpcServer(server, {
        ...grpcOptions, port: grpcPort, host: grpcHost, restrictions: grpcRestrictions,
        ...(sharedMemory ? { sharedMemory } : {}), dataPlane,
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
