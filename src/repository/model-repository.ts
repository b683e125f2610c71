import { Errors, toTributaryError } from '../errors.js';
import type { Model } from '../model/index.js';
import { checkModelName } from '../paths/index.js';
import type { LoadOptions, ModelIndexEntry } from './model-state.js';
import { findModels } from './find-models.js';
import { fingerprint } from './fingerprint.js';
import { runLimited } from './run-limited.js';
import type { LoadEnv } from './model-loader.js';
import { modelIndex, readinessBlockers } from './model-index.js';
import { ModelLoads } from './model-loads.js';
import type { OtherNamespaces } from './model-namespaces.js';
import { ModelTable } from './model-table.js';
import { DEFAULT_UPLOAD_LIMITS, removeUpload, type UploadLimits } from './upload-files.js';

export type ControlMode = 'none' | 'explicit' | 'poll';

export interface RepositoryOptions {
  paths: readonly string[];
  mode: ControlMode;
  pollSecs: number;
  env: Omit<LoadEnv, 'resolveConfig' | 'resolveLabels' | 'knownModels'>;
  /** Bounds on the files one load request may send (default DEFAULT_UPLOAD_LIMITS: 2 GiB, 1000 files). */
  uploadLimits?: Partial<UploadLimits>;
  /** tritonserver's --model-config-name: prefer `configs/<name>.pbtxt` in each model directory. */
  modelConfigName?: string;
  /** tritonserver's --model-load-thread-count: models loaded at once at start and by poll (default 4). */
  loadThreads?: number;
  /** tritonserver's --model-load-retry-count: more attempts after a load whose versions fail (default 0). */
  loadRetries?: number;
  /** --model-namespacing: how this repository's pipelines reach models the others hold (model-namespaces.ts). */
  elsewhere?: OtherNamespaces;
}

/**
 * The model table and its life cycle: scan, load (with an ensemble's composing models first),
 * unload, reload without dropping requests to unchanged models, and poll for changes.
 */
export class ModelRepository {
  readonly #o: RepositoryOptions;
  readonly #table = new ModelTable();
  readonly #loads: ModelLoads;
  #pollTimer?: NodeJS.Timeout;
  #polling = false;
  #started = false;
  #closed = false;

  constructor(o: RepositoryOptions) {
    this.#o = o;
    const models = this.#table.models;
    const env: LoadEnv = {
      ...o.env,
      resolveConfig: (m, v) => this.#resolveModel(m, v)?.config,
      resolveLabels: (m, v) => this.#resolveModel(m, v)?.labels,
      knownModels: () => [...[...models.values()].filter((e) => e.dir).map((e) => e.name), ...(o.elsewhere?.knownModels() ?? [])],
    };
    const limits: UploadLimits = { ...DEFAULT_UPLOAD_LIMITS, ...o.uploadLimits };
    this.#loads = new ModelLoads(this.#table, o, env, limits);
  }

  get mode(): ControlMode {
    return this.#o.mode;
  }

  /** Load what the control mode asks for at start. Individual load failures do not throw. */
  async start(loadModels: readonly string[] = []): Promise<void> {
    const found = await findModels(this.#o.paths);
    for (const [name, dir] of found) this.#table.entry(name).dir = dir;
    const names = this.#o.mode === 'explicit' ? (loadModels.includes('*') ? [...found.keys()] : [...loadModels]) : [...found.keys()];
    for (const name of names) {
      if (found.has(name)) continue;
      let reason = 'not found in the model repository';
      try {
        checkModelName(name);
        this.#o.env.log.error(`--load-model: model '${name}' is not in the repository`);
      } catch (e) {
        reason = toTributaryError(e).message;
        this.#o.env.log.error(`--load-model: ${reason}`);
      }
      const entry = this.#table.entry(name);
      entry.versions.set(0, { version: 0, state: 'UNAVAILABLE', reason });
      entry.blocksReadiness = true;
    }
    await runLimited(names.filter((n) => found.has(n)), this.#o.loadThreads ?? 4, (n) => this.#loadLogged(n));
    this.#started = true;
    if (this.#o.mode === 'poll' && this.#o.pollSecs > 0) {
      this.#pollTimer = setInterval(() => void this.poll(), this.#o.pollSecs * 1000);
      this.#pollTimer.unref();
    }
  }

  async #loadLogged(name: string): Promise<void> {
    try {
      await this.#loads.load(name, {}, 'server');
      this.#o.env.log.info(`successfully loaded '${name}'`);
    } catch (e) {
      this.#o.env.log.error(toTributaryError(e).message);
    }
  }

  /**
   * Load or reload a model (every version its policy selects) for a client of the repository API.
   * Throws when no version loads; the versions already serving keep serving, and readiness is
   * left as it was.
   */
  async load(name: string, options: LoadOptions = {}): Promise<void> {
    await this.#loads.load(name, options, 'api');
  }

  async unload(name: string, options: { unloadDependents?: boolean } = {}): Promise<void> {
    checkModelName(name);
    const entry = this.#table.models.get(name);
    if (!entry) throw Errors.modelNotFound(name);
    while (entry.loading) await entry.loading.catch(() => undefined);
    const models: Model[] = [];
    for (const e of entry.versions.values()) {
      if (e.model) models.push(e.model);
      e.state = 'UNLOADING';
    }
    await Promise.all(models.map((m) => m.unload()));
    for (const e of entry.versions.values()) {
      e.state = 'UNAVAILABLE';
      e.reason = 'unloaded';
      delete e.model;
    }
    entry.blocksReadiness = false;
    if (entry.scratch) {
      await removeUpload(entry.scratch);
      delete entry.scratch;
    }
    if (options.unloadDependents) {
      const stillUsed = new Set<string>();
      for (const other of this.#table.models.values()) if (other !== entry && this.#table.isLoaded(other.name)) for (const s of other.steps) stillUsed.add(s);
      for (const step of entry.steps) if (!stillUsed.has(step) && this.#table.isLoaded(step)) await this.unload(step, options);
    }
  }

  /** Rescan: load new models, reload changed ones, unload removed ones. */
  async poll(): Promise<void> {
    if (this.#polling || this.#closed) return;
    this.#polling = true;
    try {
      const found = await findModels(this.#o.paths).catch(() => new Map<string, string>());
      for (const [name, entry] of this.#table.models) {
        if (!found.has(name) && this.#table.isLoaded(name)) await this.unload(name).catch(() => undefined);
        // Gone from disk and not serving: forget it, so an old failure no longer holds readiness back.
        else if (!found.has(name) && !entry.loading) this.#table.models.delete(name);
      }
      const changed: string[] = [];
      for (const [name, dir] of found) {
        const entry = this.#table.entry(name);
        entry.dir = dir;
        const fp = await fingerprint(dir);
        if (fp === entry.fingerprint) continue;
        // Remember the attempt, so a model that fails to load is retried when its files change
        // again, not on every poll.
        entry.fingerprint = fp;
        changed.push(name);
      }
      await runLimited(changed, this.#o.loadThreads ?? 4, (name) => this.#loadLogged(name));
    } finally {
      this.#polling = false;
    }
  }

  /** The model serving a request: a given version, or the highest READY one. */
  get(name: string, version?: string): Model {
    return this.#table.get(name, version);
  }

  /** Versions of a model and their states (for metadata). */
  versions(name: string): number[] {
    return this.#table.versions(name);
  }

  readyModels(): Model[] {
    return this.#table.readyModels();
  }

  async index(options: { ready?: boolean } = {}): Promise<ModelIndexEntry[]> {
    const found = await findModels(this.#o.paths).catch(() => new Map<string, string>());
    return modelIndex(this.#table, found.keys(), options);
  }

  /** Ready when started, not closed, and no model the server itself loads blocks (model-index.ts). */
  isReady(): boolean {
    if (!this.#started || this.#closed) return false;
    return readinessBlockers(this.#table).length === 0;
  }

  /** The models that keep isReady() false, each with its state and reason ("'a' LOADING"). */
  readinessBlockers(): string[] {
    if (!this.#started) return ['the repository is still loading its models'];
    return readinessBlockers(this.#table);
  }

  /** How long a served version took to load, in ms (from reading its files to ready). */
  loadMs(name: string, version: string): number | undefined {
    return this.#table.loadMs(name, version);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    const all: Promise<void>[] = [];
    for (const entry of this.#table.models.values()) for (const e of entry.versions.values()) if (e.model) all.push(e.model.unload());
    await Promise.allSettled(all);
    await Promise.allSettled([...this.#table.models.values()].filter((e) => e.scratch).map((e) => removeUpload(e.scratch!)));
  }

  /** Whether this repository holds a model of the name, for --model-namespacing (model-table.ts). */
  presence(name: string): 'loaded' | 'loading' | 'listed' | undefined {
    return this.#table.presence(name);
  }

  #resolveModel(name: string, version: number): Model | undefined {
    // A step no model of this repository has is looked for in the others (Triton's fuzzy match).
    if (this.#o.elsewhere && !this.#table.models.has(name)) return this.#o.elsewhere.resolve(name, version);
    try {
      return this.get(name, version === -1 || version === 0 ? undefined : String(version));
    } catch {
      return undefined;
    }
  }
}
