import { createWriteStream } from 'node:fs';
import { createSharedMemoryRegistry } from '../frontend/shm/index.js';
import { startGrpcServer } from '../frontend/grpc/index.js';
import { grpcOptionsFromFlags } from './grpc-flags.js';
import { startHttpServer } from '../frontend/http/index.js';
import { createDataPlane } from '../dataplane/index.js';
import { httpOptionsFromFlags } from './http-flags.js';
import { exposureWarnings, parseRestrictions } from '../frontend/restrict/index.js';
import { createLogger, setLogSink, updateLogSettings } from '../logger.js';
import { METRICS_INTERVAL_MS, startMetricsServer } from '../metrics/index.js';
import { createServer } from '../server/index.js';
import { parseCacheConfig } from '../cache/index.js';
import { boolFlag, intFlag, listFlag, parseFlags, portFlag } from './flags.js';
import { applyFlagPolicy } from './flag-policy.js';
import { repositoryFlags } from './repository-flags.js';
import { rateLimitFromFlags } from './rate-limit-flags.js';
import { openTelemetryFromFlags, traceSettingsFromFlags } from './trace-flags.js';
import { Tracer } from '../trace/index.js';
import { packageVersion } from './package-version.js';
import { serveFlagSpec, serveHelp } from './serve-help.js';
import { modelLine, startBanner, type Listener } from './start-banner.js';
import { Errors } from '../errors.js';
import { FLUSH_GRACE_MS, MAX_EXIT_TIMEOUT_SECS, drainServer, stopSignal } from './stop-on-signal.js';

/** `tributary serve`: start the server and its front ends; resolves when it is stopped. */
export async function serve(argv: readonly string[]): Promise<number> {
  const { values: f } = parseFlags('serve', argv, serveFlagSpec());
  if (f.help) {
    process.stdout.write(serveHelp());
    return 0;
  }
  const repoFlags = repositoryFlags(f);
  const repos = repoFlags.repositories;
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
  // As tritonserver: metrics bind where HTTP does unless told otherwise (a loopback HTTP keeps metrics private too).
  const metricsHost = String(f['metrics-address'] ?? httpHost);
  const shmEnabled = boolFlag('allow-client-shm', f['allow-client-shm'], false);
  const httpRestrictions = parseRestrictions('http-restricted-api', listFlag(f['http-restricted-api']));
  const grpcRestrictions = parseRestrictions('grpc-restricted-protocol', listFlag(f['grpc-restricted-protocol']));
  const allowHttp = boolFlag('allow-http', f['allow-http'], true);
  const allowGrpc = boolFlag('allow-grpc', f['allow-grpc'], true);
  const allowMetrics = boolFlag('allow-metrics', f['allow-metrics'], true);
  // tritonserver's defaults: a model that fails at start stops the server; readiness waits for every model.
  const exitOnError = boolFlag('exit-on-error', f['exit-on-error'], true);
  const strictReadiness = boolFlag('strict-readiness', f['strict-readiness'], true);
  const pollSecs = intFlag('repository-poll-secs', f['repository-poll-secs'], 15);
  const exitTimeoutSecs = intFlag('exit-timeout-secs', f['exit-timeout-secs'], 30, 0, MAX_EXIT_TIMEOUT_SECS);
  const id = f.id === undefined ? 'triton' : String(f.id);
  const cpuMetrics = boolFlag('allow-cpu-metrics', f['allow-cpu-metrics'], true);
  const gpuMetrics = boolFlag('allow-gpu-metrics', f['allow-gpu-metrics'], true);
  const metricsIntervalMs = positiveNumberFlag('metrics-interval-ms', f['metrics-interval-ms'], METRICS_INTERVAL_MS);
  const responseCache = parseCacheConfig(listFlag(f['cache-config']), intFlag('response-cache-byte-size', f['response-cache-byte-size'], 0, 0));
  const log = createLogger('serve');
  applyFlagPolicy(f, log);
  if (allowMetrics && gpuMetrics && f['allow-gpu-metrics'] !== undefined) log.info('--allow-gpu-metrics=true: no GPU is used, so no GPU metric family is exported');
  const rateLimit = rateLimitFromFlags(f, log);
  const traceSettings = traceSettingsFromFlags(f);
  const tracer = new Tracer(createLogger('trace'), openTelemetryFromFlags(f));
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
    strictModelConfig: repoFlags.strict,
    ...(repoFlags.configName === undefined ? {} : { modelConfigName: repoFlags.configName }),
    backendConfig: repoFlags.backendConfig,
    modelNamespacing: repoFlags.namespacing,
    modelLoadThreadCount: intFlag('model-load-thread-count', f['model-load-thread-count'], 4, 1),
    modelLoadRetryCount: intFlag('model-load-retry-count', f['model-load-retry-count'], 0, 0),
    strictReadiness,
    logReadiness: true,
    id,
    extensions: shmEnabled ? ['system_shared_memory'] : [],
    ...(responseCache ? { responseCache } : {}),
    ...rateLimit,
    tracer,
  });
  const index = (await server.repositoryIndex()).map((m) => ({ ...m, loadMs: server.modelLoadMs(m.name, m.version) }));
  if (exitOnError && index.some((m) => m.state !== 'READY' && m.reason !== 'unloaded')) {
    for (const m of index) log.info(modelLine(m));
    await server.close();
    log.error('a model failed to load and --exit-on-error=true (tritonserver\'s default); --exit-on-error=false serves the models that loaded');
    return 1;
  }
  const listeners: Listener[] = [];
  const sharedMemory = shmEnabled ? createSharedMemoryRegistry() : undefined;
  // One data plane for both front ends: one trace-settings store, one extension list.
  const dataPlane = createDataPlane(server, { ...(sharedMemory ? { sharedMemory } : {}), tracer, traceSettings });
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
      closers.push(() => h.close(FLUSH_GRACE_MS));
      listeners.push({ name: 'HTTP (KServe v2)', host: httpHost, port: h.port });
    }
    if (allowGrpc) {
      const g = await startGrpcServer(server, {
        ...grpcOptions, port: grpcPort, host: grpcHost, restrictions: grpcRestrictions,
        ...(sharedMemory ? { sharedMemory } : {}), dataPlane,
      });
      closers.push(() => g.close(FLUSH_GRACE_MS));
      listeners.push({ name: 'gRPC (inference.GRPCInferenceService)', host: grpcHost, port: g.port });
    }
    if (allowMetrics) {
      const m = await startMetricsServer(server, {
        port: metricsPort, host: metricsHost, config: metricsConfig, cpu: cpuMetrics, intervalMs: metricsIntervalMs,
      });
      closers.push(m.close);
      listeners.push({ name: 'metrics', host: metricsHost, port: m.port, path: '/metrics' });
    }
  } catch (e) {
    // A front end that cannot start (port in use) must not leave the others holding the process.
    await shutdown();
    throw e;
  }
  log.info(startBanner({ version: packageVersion(), id, listeners, models: index, strictReadiness, ready: server.isReady() }));
  const signal = await stopSignal(log);
  await drainServer(server, exitTimeoutSecs, signal, log);
  await shutdown();
  log.info('stopped');
  return 0;
}

/** tritonserver parses --metrics-interval-ms as a number of ms; 0 or less would sample without pause. */
function positiveNumberFlag(name: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (String(v).trim() === '' || !Number.isFinite(n) || n <= 0) throw Errors.cliFlagExpects(name, 'a number of milliseconds > 0', String(v));
  return n;
}
