import { Observable } from 'rxjs';
import type { BackendFactory } from '../backend/index.js';
import type { InferenceRequest, InferenceResponse } from '../inference/index.js';
import { BackendRegistry } from '../backend/index.js';
import type { ModelConfig } from '../config/index.js';
import { createLogger } from '../logger.js';
import { modelMetadata, type ModelListener, type ModelStatistics } from '../model/index.js';
import { ModelRepository, type ControlMode, type UploadLimits } from '../repository/index.js';
import { systemClock, type Clock } from '../scheduler/index.js';
import { defaultBackends } from './default-backends.js';
import type { LoadOptions, ModelIndexEntry, ModelMetadata, Server, ServerMetadata } from './types.js';
import { Errors } from '../errors.js';

export interface ServerOptions {
  /** One or more repository directories (tritonserver's repeatable --model-repository). */
  modelRepository: string | readonly string[];
  modelControlMode?: ControlMode;
  /** Models to load at start in explicit mode ('*' = all). */
  loadModels?: readonly string[];
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
}

/**
 * The composition root: registers backends, opens the repository, loads models per the control
 * mode, and returns the in-process API. Front ends (HTTP, gRPC, metrics) take this object.
 */
export async function createServer(options: ServerOptions): Promise<LocalServer> {
  const registry = new BackendRegistry();
  for (const b of options.backends ?? defaultBackends()) registry.register(b);
  const listeners = new Set<ModelListener>();
  const log = createLogger('server');
  const paths = typeof options.modelRepository === 'string' ? [options.modelRepository] : [...options.modelRepository];
  let closed = false;

  // Declared before the repository so BLS children and pipeline steps can reach it.
  const infer = (request: InferenceRequest): Observable<InferenceResponse> =>
    new Observable<InferenceResponse>((subscriber) => {
      let model;
      try {
        model = repository.get(request.model, request.version);
      } catch (e) {
        subscriber.error(e);
        return undefined;
      }
      return model.infer(request).subscribe(subscriber);
    });

  const repository: ModelRepository = new ModelRepository({
    paths,
    mode: options.modelControlMode ?? 'none',
    pollSecs: options.repositoryPollSecs ?? 15,
    ...(options.uploadLimits ? { uploadLimits: options.uploadLimits } : {}),
    env: {
      registry,
      host: { infer },
      clock: options.clock ?? systemClock,
      strict: options.strictModelConfig ?? false,
      listeners: () => listeners,
      log,
    },
  });
  await repository.start(options.loadModels ?? []);

  const extensions = [...CORE_EXTENSIONS, ...(options.extensions ?? [])];
  const controlAllowed = (what: string) => {
    if (repository.mode !== 'explicit') throw Errors.modelControlDisabled(what);
  };

  const server: LocalServer = {
    isLive: () => !closed,
    isReady: () => !closed && repository.isReady(),
    metadata: (): ServerMetadata => ({ name: SERVER_NAME, version: SERVER_VERSION, extensions }),
    modelReady: (name, version) => {
      try {
        repository.get(name, version);
        return true;
      } catch {
        return false;
      }
    },
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
    infer,
    repositoryIndex: (o): Promise<ModelIndexEntry[]> => repository.index(o),
    loadModel: async (name: string, o?: LoadOptions) => {
      controlAllowed(`load '${name}'`);
      await repository.load(name, o ?? {});
    },
    unloadModel: async (name, o) => {
      controlAllowed(`unload '${name}'`);
      await repository.unload(name, o ?? {});
    },
    poll: async () => {
      if (repository.mode !== 'poll') throw Errors.repositoryPollDisabled(repository.mode);
      await repository.poll();
    },
    addListener: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await repository.close();
    },
  };
  return server;
}
