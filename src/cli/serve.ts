import cluster from 'node:cluster';
import { createWriteStream } from 'node:fs';
import { createSharedMemoryRegistry } from '../frontend/shm/index.js';
import { startGrpcServer } from '../frontend/grpc/index.js';
import { grpcOptionsFromFlags } from './grpc-flags.js';
import { startHttpServer, type HttpServerOptions } from '../frontend/http/index.js';
import { OPENAI_DEFAULTS } from '../frontend/openai/index.js';
import { createDataPlane } from '../dataplane/index.js';
import { httpOptionsFromFlags } from './http-flags.js';
import { streamBudgetFromFlags } from './stream-flags.js';
import { exposureWarnings, parseRestrictions } from '../frontend/restrict/index.js';
import { createLogger, setLogSink, updateLogSettings } from '../logger.js';
import { METRICS_INTERVAL_MS, createMetrics, registerCaptureMetrics, registerStreamMetrics, startMetricsServer } from '../metrics/index.js';
import { createCapture, parseCaptureConfig } from '../capture/index.js';
import type { ModelConfig } from '../config/index.js';
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
import { runPrimary } from './replica-primary.js';
import { REPLICA_HEADER, joinPrimary, leavePrimary } from './replica-link.js';
import { createSequenceOwners, type PrivatePorts } from '../frontend/forward/index.js';

/** More replicas than this is a typo: each one holds the whole repository in memory. */
const MAX_REPLICAS = 64;
/** 2^20: no model's context window holds an answer longer than this; a larger bound is a typo. */
const MAX_OPENAI_TOKENS = 2 ** 20;

/** `tributary serve`: start the server and its front ends; resolves when it is stopped. */
export async function serve(argv: readonly string[]): Promise<number> {
  if (!cluster.isWorker) return serveOnce(argv);
  try {
    return await serveOnce(argv);
  } finally {
    leavePrimary();
  }
}

async function serveOnce(argv: readonly string[]): Promise<number> {
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
  const openaiPort = f['openai-port'] === undefined ? undefined : portFlag('openai-port', f['openai-port'], 0);
  const openai = { maxTokens: intFlag('openai-max-tokens', f['openai-max-tokens'], OPENAI_DEFAULTS.maxTokens, 1, MAX_OPENAI_TOKENS) };
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
  const replicas = intFlag('replicas', f.replicas, 1, 1, MAX_REPLICAS);
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
  const captureSettings = parseCaptureConfig(listFlag(f['capture-config']));
  const tracer = new Tracer(createLogger('trace'), openTelemetryFromFlags(f));
  const grpcOptions = allowGrpc ? grpcOptionsFromFlags(f, log) : {};
  const httpOptions: Omit<HttpServerOptions, 'port' | 'host'> = allowHttp || openaiPort !== undefined ? { ...httpOptionsFromFlags(f, log), openai } : {};
  const streamBudget = streamBudgetFromFlags(f);
  const exposed = exposureWarnings(mode, [
    ...(allowHttp ? [{ name: 'HTTP' as const, host: httpHost, restrictions: httpRestrictions }] : []),
    ...(allowGrpc ? [{ name: 'gRPC' as const, host: grpcHost, restrictions: grpcRestrictions }] : []),
  ]);
  for (const w of exposed) log.warn(w);
  if (replicas > 1 && cluster.isPrimary) {
    // Per-process state a client sets through one connection; each replica holds its own.
    if (shmEnabled) log.warn(`--allow-client-shm with --replicas ${replicas}: a shared memory region is registered with the replica that received the request only; a client that uses regions must keep to one connection`);
    return runPrimary({
      replicas, argv,
      ...(allowMetrics ? { metrics: { port: metricsPort, host: metricsHost, cpu: cpuMetrics, intervalMs: metricsIntervalMs } } : {}),
      banner: { version: packageVersion(), id, strictReadiness },
    }, log);
  }

  // Listening from here: a SIGTERM during the load (a long one, or a replica being started) stops the server once it has loaded, with exit 0.
  let stopRequested: NodeJS.Signals | undefined;
  let loading = true;
  const stopped = stopSignal(log);
  void stopped.then((s) => {
    stopRequested = s;
    if (loading) log.info(`${s} received while the repository is loading: the server stops once the load ends, without serving`);
  });
  log.verbose(1, `loading the model repository ${repos.join(', ')} (--model-control-mode=${mode})`);
  // Opened before the load, so a capture directory that cannot be used stops the server at once;
  // a model's own capture_rate is read from the server once it exists.
  let configOf: ((model: string) => ModelConfig) | undefined;
  const capture = captureSettings ? await createCapture(captureSettings, { modelConfig: (m) => configOf?.(m) }) : undefined;
  // Imported here, past the primary's branch: the primary loads no model and so skips the ~190 MB they cost.
  const { createServer } = await import('../server/index.js');
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
  }).catch(async (e: unknown) => {
    await capture?.close();
    throw e;
  });
  loading = false;
  configOf = (m) => server.modelConfig(m);
  if (stopRequested) {
    await server.close();
    await capture?.close();
    log.info('stopped');
    return 0;
  }
  const modelIndex = async () => (await server.repositoryIndex()).map((m) => ({ ...m, loadMs: server.modelLoadMs(m.name, m.version) }));
  let index = await modelIndex();
  if (exitOnError && index.some((m) => m.state !== 'READY' && m.reason !== 'unloaded')) {
    for (const m of index) log.info(modelLine(m));
    await server.close();
    await capture?.close();
    log.error('a model failed to load and --exit-on-error=true (tritonserver\'s default); --exit-on-error=false serves the models that loaded');
    return 1;
  }
  // A replica applies the loads and unloads done on the others before it listens. After the check
  // above: a load that failed on every replica must not make each replacement exit in turn.
  // The replica's slot (1..N) decides which sequences it owns; a replacement takes its predecessor's.
  const owners = cluster.isWorker ? createSequenceOwners(Number(process.env.TRIBUTARY_REPLICA), replicas) : undefined;
  const link = owners ? joinPrimary(server, mode === 'explicit', owners, log) : undefined;
  if (link) {
    await link.synced;
    index = await modelIndex();
  }
  const front = link?.server ?? server;
  const listeners: Listener[] = [];
  const ports: PrivatePorts = {};
  const sharedMemory = shmEnabled ? createSharedMemoryRegistry() : undefined;
  // One data plane for both front ends: one trace-settings store, one extension list.
  const dataPlane = createDataPlane(front, { ...(sharedMemory ? { sharedMemory } : {}), tracer, traceSettings, ...(capture ? { capture } : {}) });
  const closers: (() => Promise<void>)[] = [];
  const shutdown = async () => {
    for (const c of closers) await c().catch(() => undefined);
    await server.close();
    // After the server: the records of the requests the drain let finish are written too.
    await capture?.close();
  };
  try {
    if (allowHttp) {
      const h = await startHttpServer(front, {
        ...httpOptions, port: httpPort, host: httpHost, restrictions: httpRestrictions,
        ...(sharedMemory ? { sharedMemory } : {}), dataPlane, streamBudget, ...(owners ? { sequenceOwners: owners } : {}),
      });
      // Before fastify's handler, so that every response, errors included, names the replica.
      if (link) h.app.server.prependListener('request', (_req, res) => { res.setHeader(REPLICA_HEADER, String(process.pid)); });
      closers.push(() => h.close(FLUSH_GRACE_MS));
      listeners.push({ name: 'HTTP (KServe v2)', host: httpHost, port: h.port });
      if (link) {
        // The port other replicas forward this one's sequences to: loopback, plain, never forwarding again.
        const { tls: _tls, ...plain } = httpOptions;
        const p = await startHttpServer(front, {
          ...plain, port: 0, host: '127.0.0.1', exclusive: true, restrictions: httpRestrictions,
          // Every answer names the replica (the listener below): the socket lane's would not.
          ...(sharedMemory ? { sharedMemory } : {}), dataPlane, streamBudget, inferLane: false,
        });
        p.app.server.prependListener('request', (_req, res) => { res.setHeader(REPLICA_HEADER, String(process.pid)); });
        closers.push(() => p.close(FLUSH_GRACE_MS));
        ports.http = p.port;
      }
    }
    if (openaiPort !== undefined) {
      const o = await startHttpServer(front, {
        ...httpOptions, port: openaiPort, host: httpHost, restrictions: httpRestrictions, dataPlane, streamBudget, apis: 'openai',
      });
      if (link) o.app.server.prependListener('request', (_req, res) => { res.setHeader(REPLICA_HEADER, String(process.pid)); });
      closers.push(() => o.close(FLUSH_GRACE_MS));
      listeners.push({ name: 'OpenAI-compatible API', host: httpHost, port: o.port, path: '/v1' });
    }
    if (allowGrpc) {
      const g = await startGrpcServer(front, {
        ...grpcOptions, port: grpcPort, host: grpcHost, restrictions: grpcRestrictions,
        ...(sharedMemory ? { sharedMemory } : {}), dataPlane, streamBudget, ...(owners ? { sequenceOwners: owners } : {}),
      });
      closers.push(() => g.close(FLUSH_GRACE_MS));
      listeners.push({ name: 'gRPC (inference.GRPCInferenceService)', host: grpcHost, port: g.port });
      if (link) {
        const { tls: _tls, ...plain } = grpcOptions;
        const p = await startGrpcServer(front, {
          ...plain, port: 0, host: '127.0.0.1', exclusive: true, restrictions: grpcRestrictions,
          ...(sharedMemory ? { sharedMemory } : {}), dataPlane, streamBudget,
        });
        closers.push(() => p.close(FLUSH_GRACE_MS));
        ports.grpc = p.port;
      }
    }
    if (allowMetrics && link) {
      // The primary owns the metrics port and asks each replica for its registry at scrape time.
      const m = createMetrics(server, metricsConfig, { cpu: false });
      if (capture) registerCaptureMetrics(m.registry, capture);
      registerStreamMetrics(m.registry, streamBudget);
      link.setMetrics(m.registry);
      closers.push(async () => m.detach());
    } else if (allowMetrics) {
      const m = await startMetricsServer(server, {
        port: metricsPort, host: metricsHost, config: metricsConfig, cpu: cpuMetrics, intervalMs: metricsIntervalMs,
      });
      if (capture) registerCaptureMetrics(m.registry, capture);
      registerStreamMetrics(m.registry, streamBudget);
      closers.push(m.close);
      listeners.push({ name: 'metrics', host: metricsHost, port: m.port, path: '/metrics' });
    }
  } catch (e) {
    // A front end that cannot start (port in use) must not leave the others holding the process.
    await shutdown();
    throw e;
  }
  if (link) link.up(listeners, index, server.isReady(), ports);
  else log.info(startBanner({ version: packageVersion(), id, listeners, models: index, strictReadiness, ready: server.isReady() }));
  const signal = await stopped;
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
