import { Observable, defer, from, switchMap, throwError } from 'rxjs';
import type { BackendFactory } from '../backend/index.js';
import { startOn, type InferenceRequest, type InferenceResponse, type ResponseSink, type StopRequest } from '../inference/index.js';
import { BackendRegistry, parseBackendConfig } from '../backend/index.js';
import type { ModelConfig } from '../config/index.js';
import { createLogger } from '../logger.js';
import { modelMetadata, type Model, type ModelListener, type ModelStatistics } from '../model/index.js';
import { createRepository, type ControlMode, type Repository, type UploadLimits } from '../repository/index.js';
import { RateLimiter, systemClock, type Clock, type RateLimitResource } from '../scheduler/index.js';
import { defaultBackends } from './default-backends.js';
import { createDrainGate, type DrainResult } from './drain-gate.js';
import { createReadinessLog } from './readiness-log.js';
import type { LoadOptions, ModelIndexEntry, ModelMetadata, Server, ServerMetadata } from './types.js';
import { Errors } from '../errors.js';
import { createResponseCache, type CacheSettings } from '../cache/index.js';
import type { Tracer } from '../trace/index.js';
import { createRoutingHeaders } from '../experiment/index.js';
import { createCustomMetrics } from './custom-metrics.js';

export interface ServerOptions {
  /** One or more repository directories (tritonserver's repeatable --model-repository). */
  modelRepository: string | readonly string[];
  modelControlMode?: ControlMode;
  /** Models to load at start in explicit mode ('*' = all). */
  loadModels?: readonly string[];
  /**
   * Explicit mode: a request (a BLS call included) for a model of the repositories that is not
   * loaded loads it first, once; a failed load is not retried. For `run-model`, which loads the
   * model it runs and its pipeline steps but cannot know a script's callees before they are
   * called; never for a server, where any client could load any model by asking for it.
   */
  loadOnDemand?: boolean;
  repositoryPollSecs?: number;
  /** true: every model needs a complete config; false (default): auto-complete from model files. */
  strictModelConfig?: boolean;
  /** Backends to register; defaults to onnxruntime, typescript and identity. */
  backends?: readonly BackendFactory[];
  clock?: Clock;
  /** Extensions the front ends add (e.g. system_shared_memory when enabled). */
  extensions?: readonly string[];
  /** Bounds on the `file:` parameters of one load request (default DEFAULT_UPLOAD_LIMITS). */
  uploadLimits?: Partial<UploadLimits>;
  /**
   * tritonserver's --model-config-name: load `configs/<name>.pbtxt` of a model directory instead of
   * its config.pbtxt when that file exists (confined like every name that becomes a path).
   */
  modelConfigName?: string;
  /** tritonserver's --model-load-thread-count: models loaded at once at start and by poll (default 4). */
  modelLoadThreadCount?: number;
  /** tritonserver's --model-load-retry-count: more attempts after a failed model load (default 0). */
  modelLoadRetryCount?: number;
  /** tritonserver's --model-namespacing: models of one name in several repositories are all served. */
  modelNamespacing?: boolean;
  /** The server metadata name (tritonserver's --id; default SERVER_NAME). */
  id?: string;
  /**
   * tritonserver's --strict-readiness: true (default) = ready when live and every model the server
   * loads is ready; false = ready whenever live, whatever the models' states.
   */
  strictReadiness?: boolean;
  /**
   * tritonserver's --backend-config entries: `<backend>,<setting>=<value>` or `<setting>=<value>`
   * (every backend that has the setting); defaults for model parameters a model does not set.
   */
  backendConfig?: readonly string[];
  /** Log each change of the readiness answer, naming the models that hold it back (the CLI sets it). */
  logReadiness?: boolean;
  /**
   * tritonserver's --rate-limit: 'execution_count' = instances execute only when the resources
   * their instance group's rate_limiter names are free, in priority order; 'off' (default) =
   * whenever an instance is free.
   */
  rateLimit?: 'off' | 'execution_count';
  /** tritonserver's --rate-limit-resource: copies of each resource (default: the most any instance asks). */
  rateLimitResources?: readonly RateLimitResource[];
  /**
   * The response cache (tritonserver's --cache-config, parsed by `parseCacheConfig`): one per
   * server, used by the models whose config has `response_cache { enable: true }`.
   */
  responseCache?: CacheSettings;
  /**
   * The trace extension: samples the requests that enter the server (pipeline steps and BLS calls
   * are traced under their parent); closed, its files written, when the server closes.
   */
  tracer?: Tracer;
}

export const SERVER_NAME = 'tributary';
export const SERVER_VERSION = '0.1.0';

/** Extensions the core implements, whatever the front end. */
const CORE_EXTENSIONS = [
  'classification', 'sequence', 'model_repository', 'model_repository(unload_dependents)', 'schedule_policy',
  'model_configuration', 'binary_tensor_data', 'parameters', 'statistics', 'logging',
];

/**
 * What `createServer` returns: the front ends' `Server` API plus `poll()`, which rescans the
 * repository now (poll mode only) instead of waiting for the next `repositoryPollSecs` tick, so
 * callers and tests can apply on-disk changes deterministically.
 */
export interface LocalServer extends Server {
  poll(): Promise<void>;
  /**
   * Stop as tritonserver does on SIGTERM: readiness turns false at once (liveness stays true),
   * new inference requests are refused with UNAVAILABLE, the in-flight ones get up to `timeoutMs`
   * to end, then the rest are answered with an error and cancelled. Call `close()` after it.
   */
  drain(timeoutMs: number): Promise<DrainResult>;
  /** How long a served model version took to load, in ms; undefined when it is not served. */
  modelLoadMs(name: string, version: string): number | undefined;
}

/**
 * The composition root: registers backends, opens the repository, loads models per the control
 * mode, and returns the in-process API. Front ends (HTTP, gRPC, metrics) take this object.
 */
export async function createServer(options: ServerOptions): Promise<LocalServer> {
  const registry = new BackendRegistry();
  for (const b of options.backends ?? defaultBackends()) registry.register(b);
  // Before anything loads: a bad entry is a start-up error naming the flag.
  const backendSettings = parseBackendConfig(options.backendConfig ?? [], registry);
  const listeners = new Set<ModelListener>();
  const log = createLogger('server');
  const cache = options.responseCache ? await createResponseCache(options.responseCache, log) : undefined;
  const paths = typeof options.modelRepository === 'string' ? [options.modelRepository] : [...options.modelRepository];
  let closed = false;
  const gate = createDrainGate();
  const logReadiness = options.logReadiness ? createReadinessLog(log) : () => undefined;
  const tracer = options.tracer;
  const routingHeaders = createRoutingHeaders();
  const customMetrics = createCustomMetrics();

  // The loads loadOnDemand started, by model: later requests wait for the same one, and after a
  // failed one get its error from the repository rather than start another.
  const onDemand = options.loadOnDemand && options.modelControlMode === 'explicit' ? new Map<string, Promise<void>>() : undefined;
  // The model `request` names, looked up now; one not served is its refusal, or (load on demand)
  // its answer once loaded, as an observable.
  const lookUp = (request: InferenceRequest): Model | Observable<InferenceResponse> => {
    try {
      return repository.get(request.model, request.version);
    } catch (e) {
      if (!onDemand) return throwError(() => e);
      let load = onDemand.get(request.model);
      if (!load) onDemand.set(request.model, load = repository.load(request.model).catch(() => undefined));
      return from(load).pipe(switchMap(() => repository.get(request.model, request.version).infer(request)));
    }
  };
  const inferNow = (request: InferenceRequest): Observable<InferenceResponse> => {
    const found = lookUp(request);
    return found instanceof Observable ? found : found.infer(request);
  };
  // A front end's request as the drain gate starts it: straight into the model's queue.
  const startNow = (request: InferenceRequest, sink: ResponseSink): StopRequest | undefined => {
    const found = lookUp(request);
    return found instanceof Observable ? startOn(found, sink) : found.start(request, sink);
  };
  // Looked up on subscribe. Declared before the repository so BLS children and pipeline steps can reach it.
  const infer = (request: InferenceRequest): Observable<InferenceResponse> => defer(() => inferNow(request));

  // The model ready endpoints' answer: loaded, then the model's own say (a script's isReady()).
  const modelReadyCheck = (name: string, version?: string): boolean | Promise<boolean> => {
    let model;
    try {
      model = repository.get(name, version);
    } catch {
      return false;
    }
    return model.ready();
  };

  // Only requests from outside pass the gate; pipeline steps and BLS calls use `infer` directly.
  const start = tracer
    ? (request: InferenceRequest, sink: ResponseSink) => gate.admit(request, sink, (s) => startOn(tracer.infer(request, infer), s))
    : (request: InferenceRequest, sink: ResponseSink) => gate.admit(request, sink, (s) => startNow(request, s));

  const controlAllowed = (what: string) => {
    if (repository.mode !== 'explicit') throw Errors.modelControlDisabled(what, repository.mode);
  };
  const loadModel = async (name: string, o?: LoadOptions) => {
    controlAllowed(`load '${name}'`);
    await repository.load(name, o ?? {});
  };
  const unloadModel = async (name: string, o?: { unloadDependents?: boolean }) => {
    controlAllowed(`unload '${name}'`);
    await repository.unload(name, o ?? {});
  };

  const repository: Repository = createRepository({
    paths,
    mode: options.modelControlMode ?? 'none',
    pollSecs: options.repositoryPollSecs ?? 15,
    ...(options.uploadLimits ? { uploadLimits: options.uploadLimits } : {}),
    ...(options.modelConfigName ? { modelConfigName: options.modelConfigName } : {}),
    ...(options.modelLoadThreadCount ? { loadThreads: options.modelLoadThreadCount } : {}),
    ...(options.modelLoadRetryCount ? { loadRetries: options.modelLoadRetryCount } : {}),
    env: {
      registry,
      host: {
        infer,
        childCall: (caller, callee, ns, success) => { for (const l of listeners) l.onChildCall?.({ caller, callee, ns, success }); },
        customMetrics: (model, version) => customMetrics.scope(model, version),
        // Scripts reach the repository through the very calls the load API makes (from
        // initialize() too, while the repository starts: hence functions, not the server object).
        control: { load: loadModel, unload: unloadModel, ready: modelReadyCheck },
      },
      clock: options.clock ?? systemClock,
      strict: options.strictModelConfig ?? false,
      backendSettings,
      ...(options.rateLimit === 'execution_count' ? { rateLimiter: new RateLimiter(options.rateLimitResources ?? []) } : {}),
      listeners: () => listeners,
      routingHeaders,
      ...(cache ? { cache } : {}),
      log,
    },
  }, options.modelNamespacing ?? false);
  await repository.start(options.loadModels ?? []);

  const extensions = [...CORE_EXTENSIONS, ...(options.extensions ?? [])];

  const server: LocalServer = {
    isLive: () => !closed,
    isReady: () => {
      const stopping = closed || gate.draining;
      const ready = !stopping && (options.strictReadiness === false || repository.isReady());
      logReadiness(ready, () => (stopping ? ['the server is stopping'] : repository.readinessBlockers()));
      return ready;
    },
    isDraining: () => gate.draining,
    metadata: (): ServerMetadata => ({ name: options.id ?? SERVER_NAME, version: SERVER_VERSION, extensions }),
    modelLoadMs: (name, version) => repository.loadMs(name, version),
    modelReady: (name, version) => {
      try {
        repository.get(name, version);
        return true;
      } catch {
        return false;
      }
    },
    modelReadyCheck: (name, version) => modelReadyCheck(name, version),
    modelMetadata: (name, version): ModelMetadata => {
      const m = repository.get(name, version);
      return modelMetadata(m.config, repository.versions(name).map(String));
    },
    modelConfig: (name, version): ModelConfig => repository.get(name, version).config,
    modelStatistics: (name, version) => {
      const stats: ModelStatistics[] = [];
      if (name === undefined) {
        for (const m of repository.readyModels()) stats.push(m.statistics());
      } else if (version) {
        stats.push(repository.get(name, version).statistics());
      } else {
        const versions = repository.versions(name);
        if (versions.length === 0) repository.get(name); // throws the right NOT_FOUND / UNAVAILABLE
        for (const v of versions) stats.push(repository.get(name, String(v)).statistics());
      }
      return { model_stats: stats.sort((a, b) => a.name.localeCompare(b.name) || Number(a.version) - Number(b.version)) };
    },
    infer: (request) => new Observable((subscriber) => start(request, subscriber)),
    start,
    drain: (timeoutMs) => gate.drain(timeoutMs),
    routingHeaders: () => routingHeaders.names(),
    repositoryIndex: (o): Promise<ModelIndexEntry[]> => repository.index(o),
    loadModel,
    unloadModel,
    poll: async () => {
      if (repository.mode !== 'poll') throw Errors.repositoryPollDisabled(repository.mode);
      await repository.poll();
    },
    customMetrics: () => customMetrics,
    addListener: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await repository.close();
      await cache?.close();
      await tracer?.close();
    },
  };
  return server;
}
