/**
 * The data plane: every API operation, once, protocol-neutral (as KServe's data plane is). The
 * HTTP and gRPC front ends decode the wire into these calls and encode what they return; the
 * rules (what a load parameter, a trace or log setting, a shared-memory registration may be; the
 * extension list) live here, so both front ends answer alike. One instance is shared by the front
 * ends of a server: it holds the one trace-settings store.
 */
import type { ModelIndexEntry, ModelMetadata, Server, ServerMetadata } from '../server/index.js';
import type { LogSettings } from '../logger.js';
import { Errors } from '../errors.js';
import { logSettings } from './log-settings.js';
import { loadOptions, unloadDependents, type LoadParameterValue } from './load-parameters.js';
import { sharedMemoryOperations, type SharedMemoryOperations, type SharedMemoryRegions } from './shared-memory-regions.js';
import type { SettingsPatch } from './setting-value.js';
import { createTraceSettings, type TraceSettingValues } from './trace-settings.js';
import type { Tracer } from '../trace/index.js';
import type { Capture } from '../capture/index.js';
import { createEdge, type Edge, type EdgeOptions } from './edge.js';

export interface DataPlaneOptions {
  /** The client shared-memory registry (--allow-client-shm); absent, its operations are refused. */
  sharedMemory?: SharedMemoryRegions;
  /** The server's tracer: given, `trace` is an extension and every settings change reaches it. */
  tracer?: Tracer;
  /** Start-up trace settings (the serve flags), checked by the same rules as the API's. */
  traceSettings?: SettingsPatch;
  /** Data capture (--capture-config): every edge's top-level requests pass its tap. */
  capture?: Capture;
}

export type LoadParameters = Readonly<Record<string, LoadParameterValue>>;

export interface DataPlane extends SharedMemoryOperations {
  live(): boolean;
  ready(): boolean;
  /** A drain has begun: HTTP responses close their connection. */
  draining(): boolean;
  modelReady(model: string, version?: string): boolean;
  /** The model ready endpoints' answer: a promise when the model has its own say (a script's isReady()). */
  modelReadyCheck(model: string, version?: string): boolean | Promise<boolean>;
  /** Name, version and the extensions this server implements, the same on every front end. */
  serverMetadata(): ServerMetadata;
  modelMetadata(model: string, version?: string): ModelMetadata;
  modelConfig(model: string, version?: string): ReturnType<Server['modelConfig']>;
  /** Whether a model answers with a stream of responses (NOT_FOUND/UNAVAILABLE like the others). */
  isDecoupled(model: string, version?: string): boolean;
  modelStatistics(model?: string, version?: string): ReturnType<Server['modelStatistics']>;
  /** One response, or many for a decoupled model; the last has `final`. Unsubscribe cancels. */
  infer: Server['infer'];
  /**
   * A front end's door for inference requests: the per-request policy (header forwarding, trace
   * joining) applied once for every protocol. Opened once per front end, at start-up.
   */
  edge(options?: EdgeOptions): Edge;
  repositoryIndex(options?: { ready?: boolean }): Promise<ModelIndexEntry[]>;
  /** Triton's load parameters: `config` (JSON text) and `file:<path>` (bytes, or base64 text). */
  load(model: string, parameters?: LoadParameters): Promise<void>;
  /** Triton's unload parameter `unload_dependents`. */
  unload(model: string, parameters?: LoadParameters): Promise<void>;
  /** Global or one model's trace settings, after applying `patch` when it has any setting. */
  traceSettings(target: { model?: string; version?: string }, patch?: SettingsPatch): TraceSettingValues;
  /** The logging settings, after applying `patch` when it has any setting. */
  logSettings(patch?: SettingsPatch): Readonly<LogSettings>;
}

/** Extensions a front end's presence decides, whatever the core lists. */
const DECIDED_HERE = new Set(['system_shared_memory', 'cuda_shared_memory', 'trace', 'generate']);

const NO_HEADERS: readonly string[] = [];

/** gRPC spells "no version" as an empty string. */
const ver = (version: string | undefined) => version || undefined;

export function createDataPlane(server: Server, options: DataPlaneOptions = {}): DataPlane {
  const trace = createTraceSettings();
  const tracer = options.tracer;
  // Every model's settings are its overrides over the global ones, so any change reapplies them all.
  const configure = (countSet?: ReadonlySet<string>) => tracer?.configure(trace.get(), new Map(trace.models().map((m) => [m, trace.get(m)])), countSet);
  // Triton's trace_count reads back as the traces still to take, counting down as requests are traced.
  const shownTrace = (model: string | undefined, values: TraceSettingValues): TraceSettingValues => {
    const left = tracer?.traceCount(model);
    return left === undefined ? values : { ...values, trace_count: String(left) };
  };
  if (options.traceSettings) trace.update(undefined, options.traceSettings);
  configure();
  const extensions = (): string[] => {
    const out = server.metadata().extensions.filter((e) => !DECIDED_HERE.has(e));
    if (options.sharedMemory) out.push('system_shared_memory');
    if (tracer) out.push('trace');
    out.push('generate');
    return [...new Set(out)];
  };
  return {
    ...sharedMemoryOperations(options.sharedMemory),
    live: () => server.isLive(),
    ready: () => server.isReady(),
    draining: () => server.isDraining?.() ?? false,
    modelReady: (model, version) => server.modelReady(model, ver(version)),
    modelReadyCheck: (model, version) => (server.modelReadyCheck ? server.modelReadyCheck(model, ver(version)) : server.modelReady(model, ver(version))),
    serverMetadata() {
      const m = server.metadata();
      return { name: m.name, version: m.version, extensions: extensions() };
    },
    modelMetadata: (model, version) => server.modelMetadata(model, ver(version)),
    modelConfig: (model, version) => server.modelConfig(model, ver(version)),
    isDecoupled: (model, version) => server.modelConfig(model, ver(version)).model_transaction_policy?.decoupled === true,
    modelStatistics: (model, version) => server.modelStatistics(model || undefined, ver(version)),
    infer: (request) => server.infer(request),
    edge: (edgeOptions) => createEdge((request) => server.infer(request), {
      ...edgeOptions, capture: options.capture, routingHeaders: () => server.routingHeaders?.() ?? NO_HEADERS,
    }, server.start?.bind(server)),
    repositoryIndex: (opts) => server.repositoryIndex(opts?.ready === undefined ? {} : { ready: opts.ready }),
    load: async (model, parameters = {}) => server.loadModel(model, loadOptions(model, parameters)),
    unload: async (model, parameters = {}) => server.unloadModel(model, { unloadDependents: unloadDependents(model, parameters) }),
    traceSettings({ model, version }, patch = {}) {
      if (model && ver(version) !== undefined) throw Errors.traceSettingPerVersion(model);
      if (model) server.modelMetadata(model); // NOT_FOUND for an unknown model
      if (Object.keys(patch).length === 0) return shownTrace(model || undefined, trace.get(model || undefined));
      const values = trace.update(model || undefined, patch);
      configure('trace_count' in patch ? new Set([model || '']) : undefined);
      return shownTrace(model || undefined, values);
    },
    logSettings: (patch) => logSettings(patch),
  };
}
