import type { ModelConfig } from '../config/index.js';
import { isEnsemble, positionOf } from '../config/index.js';
import { Errors, TributaryError, toTributaryError } from '../errors.js';
import type { Model } from '../model/index.js';
import { checkModelName } from '../paths/index.js';
import type { LoadOptions, ModelIndexEntry, ModelState } from './model-state.js';
import { findModels, listVersions } from './find-models.js';
import { findDependencyCycle } from './find-dependency-cycle.js';
import { fingerprint } from './fingerprint.js';
import { runLimited } from './run-limited.js';
import { loadFailure, pollFailure, versionFailures } from './load-failure.js';
import { loadModelVersion, type LoadEnv } from './model-loader.js';
import { withoutPath } from './model-paths.js';
import type { OtherNamespaces } from './model-namespaces.js';
import { parseConfigOverride, readModelConfig, type ReadConfig } from './read-model-config.js';
import { DEFAULT_UPLOAD_LIMITS, removeUpload, writeUpload, type UploadLimits } from './upload-files.js';
import { selectVersions } from './version-policy.js';

export type ControlMode = 'none' | 'explicit' | 'poll';

/**
 * Who asked for a load. The server's own loads (start-up, --load-model, poll) hold readiness while
 * they run and after they fail; a client's load through the repository API never does, so that no
 * request can take the server out of readiness.
 */
type LoadOrigin = 'server' | 'api';

interface VersionEntry { version: number; state: ModelState; reason: string; model?: Model; loadMs?: number }
interface ModelEntry {
  name: string;
  dir?: string;
  versions: Map<number, VersionEntry>;
  fingerprint?: string;
  /** Composing models, for ensembles. */
  steps: string[];
  /** The composing model this pipeline's load is waiting for (a dependency, for cycle checks). */
  waitingOn?: string | undefined;
  /** Where the config names each composing model (file:line:col), for cycle messages. */
  stepAt: Map<string, string>;
  /** Temporary directory holding files sent with the load request; removed when replaced or unloaded. */
  scratch?: string;
  loading?: Promise<void>;
  /** A server-started load is running or failed, and nothing serves: the server is not ready. */
  blocksReadiness?: boolean;
}

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
  readonly #env: LoadEnv;
  readonly #limits: UploadLimits;
  readonly #models = new Map<string, ModelEntry>();
  #pollTimer?: NodeJS.Timeout;
  #polling = false;
  #started = false;
  #closed = false;

  constructor(o: RepositoryOptions) {
    this.#o = o;
    this.#env = {
      ...o.env,
      resolveConfig: (m, v) => this.#resolveModel(m, v)?.config,
      resolveLabels: (m, v) => this.#resolveModel(m, v)?.labels,
      knownModels: () => [...[...this.#models.values()].filter((e) => e.dir).map((e) => e.name), ...(o.elsewhere?.knownModels() ?? [])],
    };
    this.#limits = { ...DEFAULT_UPLOAD_LIMITS, ...o.uploadLimits };
  }

  get mode(): ControlMode {
    return this.#o.mode;
  }

  /** Load what the control mode asks for at start. Individual load failures do not throw. */
  async start(loadModels: readonly string[] = []): Promise<void> {
    const found = await findModels(this.#o.paths);
    for (const [name, dir] of found) this.#entry(name).dir = dir;
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
      const entry = this.#entry(name);
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
      await this.#load(name, {}, 'server');
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
    await this.#load(name, options, 'api');
  }

  async #load(name: string, options: LoadOptions, origin: LoadOrigin): Promise<void> {
    checkModelName(name); // before the name reaches the model table or any path
    const entry = this.#entry(name);
    while (entry.loading) await entry.loading.catch(() => undefined);
    if (origin === 'server') entry.blocksReadiness = true;
    const p = this.#withRetries(name, () => this.#doLoad(entry, options, origin));
    entry.loading = p;
    try {
      await p;
      entry.blocksReadiness = false;
    } catch (e) {
      const err = toTributaryError(withoutPath(name, e));
      this.#recordFailure(entry, err);
      throw Errors.modelNotFound.is(err) ? pollFailure(name, err) : loadFailure(name, err);
    } finally {
      if (entry.loading === p) entry.loading = undefined;
    }
  }

  /**
   * A load that failed before any version was tried (no version folder, unreadable config, a
   * composing model that failed) still has to show as UNAVAILABLE with its reason; without this
   * the model would look merely "unloaded".
   */
  #recordFailure(entry: ModelEntry, err: TributaryError): void {
    const versions = [...entry.versions.values()];
    if (versions.some((v) => v.model)) return; // still serving an older load
    if (Errors.modelNotFound.is(err) && !entry.dir && versions.length === 0) {
      this.#models.delete(entry.name); // never existed: leave no trace in the index
      return;
    }
    if (versions.length === 0 || versions.every((v) => v.reason === 'unloaded' || v.state === 'LOADING')) {
      entry.versions = new Map([[0, { version: 0, state: 'UNAVAILABLE', reason: err.message }]]);
    }
  }

  /**
   * --model-load-retry-count: a load whose versions fail is tried again; a request the repository
   * cannot poll (unknown model, bad parameters) would fail the same way, so it is not retried.
   */
  async #withRetries(name: string, attempt: () => Promise<void>): Promise<void> {
    const retries = this.#o.loadRetries ?? 0;
    for (let i = 0; ; i++) {
      try {
        return await attempt();
      } catch (e) {
        const err = toTributaryError(e);
        if (i >= retries || Errors.modelNotFound.is(err) || Errors.loadPollFailed.is(err) || Errors.loadParameterInvalid.is(err)) throw e;
        this.#o.env.log.warn(`load of '${name}' failed (${err.message}); retry ${i + 1} of ${retries}`);
      }
    }
  }

  async #doLoad(entry: ModelEntry, options: LoadOptions, origin: LoadOrigin): Promise<void> {
    const name = entry.name;
    if (options.files && Object.keys(options.files).length) {
      if (options.config === undefined) throw Errors.loadParameterInvalid(name, "'file:' parameters need a 'config' parameter too (as in Triton)");
      const { parsed, upload } = await polled(name, async () => {
        // The config is checked before anything is written, so bad text costs no disk.
        const parsed = parseConfigOverride(name, options.config!);
        return { parsed, upload: await writeUpload(name, options.files!, this.#limits) };
      });
      try {
        await this.#loadFrom(entry, upload.dir, parsed, origin);
      } catch (e) {
        await removeUpload(upload.scratch);
        throw e;
      }
      const previous = entry.scratch;
      entry.scratch = upload.scratch;
      if (previous) await removeUpload(previous);
      return;
    }
    let dir = entry.dir;
    if (!dir) {
      const found = await findModels(this.#o.paths);
      dir = found.get(name);
      if (!dir) throw Errors.modelNotFound(name);
      entry.dir = dir;
    }
    const parsed = await polled(name, () => readModelConfig(dir, options.config, { relativeFile: true, ...(this.#o.modelConfigName ? { configName: this.#o.modelConfigName } : {}) }));
    await this.#loadFrom(entry, dir, parsed, origin);
    if (entry.scratch) {
      await removeUpload(entry.scratch);
      delete entry.scratch;
    }
  }

  async #loadFrom(entry: ModelEntry, dir: string, parsed: ReadConfig, origin: LoadOrigin): Promise<void> {
    const name = entry.name;
    parsed.config.name = name;
    const config = parsed.config;
    const steps = isEnsemble(config) ? [...new Set(config.ensemble_scheduling?.step.map((s) => s.model_name) ?? [])] : [];
    for (const step of steps) {
      try {
        checkModelName(step);
      } catch (e) {
        throw toTributaryError(e).withContext(`failed to load '${name}': ensemble_scheduling step model_name`);
      }
    }
    await this.#loadSteps(entry, steps, parsed, origin);
    const available = await listVersions(dir);
    if (isEnsemble(config) && available.length === 0) available.push(1);
    const chosen = selectVersions(config.version_policy, available);
    if (chosen.length === 0) {
      throw Errors.modelLoadFailed(name, `no version directory of the model matches its version_policy (found: ${available.join(', ') || 'none'})`);
    }

    const fp = await fingerprint(dir);
    const next = new Map<number, VersionEntry>();
    for (const v of chosen) next.set(v, { version: v, state: 'LOADING', reason: '' });
    const old = entry.versions;
    // Publish LOADING states for versions not already served; served ones keep serving until swapped.
    for (const [v, e] of next) if (!old.get(v)?.model) old.set(v, e);
    const results = await Promise.all(chosen.map(async (v) => {
      try {
        const t0 = performance.now();
        const model = await loadModelVersion(parsed, dir, v, this.#env);
        return { v, model, ms: performance.now() - t0 };
      } catch (e) {
        return { v, error: toTributaryError(withoutPath(name, e)) };
      }
    }));
    const errors: TributaryError[] = [];
    const retired: Model[] = [];
    for (const r of results) {
      const e = next.get(r.v)!;
      if (r.model) {
        e.state = 'READY';
        e.model = r.model;
        e.loadMs = r.ms;
      } else {
        e.state = 'UNAVAILABLE';
        e.reason = r.error!.message;
        errors.push(r.error!);
      }
    }
    if (errors.length === results.length) {
      // Nothing loaded: keep what was being served before (a reload that fails changes nothing).
      for (const [v, e] of next) if (!old.get(v)?.model) old.set(v, e);
      throw versionFailures(name, results.map((r) => [r.v, r.error!] as const));
    }
    for (const [v, e] of old) if (e.model && next.get(v)?.model !== e.model) retired.push(e.model);
    entry.versions = next;
    entry.steps = steps;
    entry.fingerprint = fp;
    await Promise.all(retired.map((m) => this.#retire(m)));
  }

  /**
   * Load the composing models a pipeline names that are not serving yet. Each dependency is first
   * checked against the loop it would close: pipelines that use each other would otherwise wait on
   * each other's loads forever (find-dependency-cycle.ts).
   */
  async #loadSteps(entry: ModelEntry, steps: readonly string[], parsed: ReadConfig, origin: LoadOrigin): Promise<void> {
    const named = parsed.config.ensemble_scheduling?.step ?? [];
    for (const step of steps) {
      const at = positionOf(parsed, `ensemble_scheduling.step[${named.findIndex((s) => s.model_name === step)}].model_name`);
      entry.stepAt.set(step, `${at.file}:${at.line}:${at.col}`);
    }
    for (const step of steps) {
      const cycle = findDependencyCycle(entry.name, step, (m) => this.#dependsOn(m));
      if (cycle) {
        const links = cycle.slice(1).map((to, i) => `${this.#models.get(cycle[i]!)?.stepAt.get(to) ?? cycle[i]} uses '${to}'`);
        throw Errors.dependencyCycle(entry.name, cycle, links);
      }
      if (this.#isLoaded(step)) continue;
      // A step in no repository is left to the pipeline's compile, which names it at its
      // file:line:col with a "did you mean", as `tributary validate` does.
      if (!(await this.#inRepository(step))) {
        await this.#o.elsewhere?.load(step, entry.name);
        continue;
      }
      entry.waitingOn = step;
      try {
        await this.#load(step, {}, origin);
      } finally {
        entry.waitingOn = undefined;
      }
    }
  }

  async #inRepository(name: string): Promise<boolean> {
    const e = this.#models.get(name);
    if (e?.dir) return true;
    const dir = (await findModels(this.#o.paths).catch(() => new Map<string, string>())).get(name);
    if (dir) this.#entry(name).dir = dir;
    return dir !== undefined;
  }

  /** What a model depends on now: the steps its serving version uses, and the load it waits for. */
  #dependsOn(name: string): string[] {
    const e = this.#models.get(name);
    if (!e) return [];
    const out = this.#isLoaded(name) ? [...e.steps] : [];
    if (e.waitingOn) out.push(e.waitingOn);
    return out;
  }

  /** Unload after in-flight requests finish, so a reload drops nothing. */
  async #retire(model: Model): Promise<void> {
    const start = Date.now();
    while (model.inflightCount() > 0 && Date.now() - start < 30_000) await new Promise((r) => setTimeout(r, 5));
    await model.unload();
  }

  async unload(name: string, options: { unloadDependents?: boolean } = {}): Promise<void> {
    checkModelName(name);
    const entry = this.#models.get(name);
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
      for (const other of this.#models.values()) if (other !== entry && this.#isLoaded(other.name)) for (const s of other.steps) stillUsed.add(s);
      for (const step of entry.steps) if (!stillUsed.has(step) && this.#isLoaded(step)) await this.unload(step, options);
    }
  }

  /** Rescan: load new models, reload changed ones, unload removed ones. */
  async poll(): Promise<void> {
    if (this.#polling || this.#closed) return;
    this.#polling = true;
    try {
      const found = await findModels(this.#o.paths).catch(() => new Map<string, string>());
      for (const [name, entry] of this.#models) {
        if (!found.has(name) && this.#isLoaded(name)) await this.unload(name).catch(() => undefined);
        // Gone from disk and not serving: forget it, so an old failure no longer holds readiness back.
        else if (!found.has(name) && !entry.loading) this.#models.delete(name);
      }
      const changed: string[] = [];
      for (const [name, dir] of found) {
        const entry = this.#entry(name);
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
    const entry = this.#models.get(name);
    if (!entry) throw Errors.modelNotFound(name, version || undefined);
    if (version) {
      const e = /^[0-9]+$/.test(version) ? entry.versions.get(Number(version)) : undefined;
      if (!e) throw Errors.modelNotFound(name, version);
      if (e.state !== 'READY' || !e.model) throw Errors.modelNotReady(name, e.state, e.reason, version);
      return e.model;
    }
    let best: VersionEntry | undefined;
    for (const e of entry.versions.values()) if (e.state === 'READY' && e.model && (!best || e.version > best.version)) best = e;
    if (!best) {
      const any = [...entry.versions.values()][0];
      throw Errors.modelNotReady(name, any?.state ?? 'UNAVAILABLE', any?.reason || 'not loaded');
    }
    return best.model!;
  }

  /** Versions of a model and their states (for metadata). */
  versions(name: string): number[] {
    return [...(this.#models.get(name)?.versions.values() ?? [])].filter((e) => e.state === 'READY').map((e) => e.version).sort((a, b) => a - b);
  }

  readyModels(): Model[] {
    const out: Model[] = [];
    for (const entry of this.#models.values()) for (const e of entry.versions.values()) if (e.state === 'READY' && e.model) out.push(e.model);
    return out;
  }

  async index(options: { ready?: boolean } = {}): Promise<ModelIndexEntry[]> {
    const found = await findModels(this.#o.paths).catch(() => new Map<string, string>());
    for (const name of found.keys()) this.#entry(name);
    const out: ModelIndexEntry[] = [];
    for (const entry of [...this.#models.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.versions.size === 0) {
        if (!options.ready) out.push({ name: entry.name, version: '', state: 'UNAVAILABLE', reason: 'unloaded' });
        continue;
      }
      for (const e of [...entry.versions.values()].sort((a, b) => a.version - b.version)) {
        if (options.ready && e.state !== 'READY') continue;
        out.push({ name: entry.name, version: e.version === 0 ? '' : String(e.version), state: e.state, reason: e.reason });
      }
    }
    return out;
  }

  /**
   * Ready when started and every model the server itself loads (at start, by --load-model, by
   * poll) serves at least one version or was unloaded. Loads through the repository API never
   * count: a client must not be able to take the server out of readiness with a bad load.
   */
  isReady(): boolean {
    if (!this.#started || this.#closed) return false;
    for (const entry of this.#models.values()) if (entry.blocksReadiness && !this.#isLoaded(entry.name)) return false;
    return true;
  }

  /** The models that keep isReady() false, each with its state and reason ("'a' LOADING"). */
  readinessBlockers(): string[] {
    if (!this.#started) return ['the repository is still loading its models'];
    const out: string[] = [];
    for (const entry of this.#models.values()) {
      if (!entry.blocksReadiness || this.#isLoaded(entry.name)) continue;
      const v = [...entry.versions.values()][0];
      out.push(`'${entry.name}' ${v?.state ?? 'LOADING'}${v?.reason ? ` (${v.reason})` : ''}`);
    }
    return out;
  }

  /** How long a served version took to load, in ms (from reading its files to ready). */
  loadMs(name: string, version: string): number | undefined {
    return this.#models.get(name)?.versions.get(Number(version))?.loadMs;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    const all: Promise<void>[] = [];
    for (const entry of this.#models.values()) for (const e of entry.versions.values()) if (e.model) all.push(e.model.unload());
    await Promise.allSettled(all);
    await Promise.allSettled([...this.#models.values()].filter((e) => e.scratch).map((e) => removeUpload(e.scratch!)));
  }

  /**
   * Whether this repository holds a model of the name, for --model-namespacing: 'loaded' once a
   * load was tried and not undone by an unload (Triton keeps such a model in its global map),
   * 'loading' while one runs, 'listed' when it is only on disk or was unloaded.
   */
  presence(name: string): 'loaded' | 'loading' | 'listed' | undefined {
    const e = this.#models.get(name);
    if (!e) return undefined;
    if (e.loading) return 'loading';
    return [...e.versions.values()].some((v) => v.reason !== 'unloaded') ? 'loaded' : 'listed';
  }

  #isLoaded(name: string): boolean {
    const e = this.#models.get(name);
    return !!e && [...e.versions.values()].some((v) => v.state === 'READY');
  }

  #entry(name: string): ModelEntry {
    let e = this.#models.get(name);
    if (!e) {
      e = { name, versions: new Map(), steps: [], stepAt: new Map() };
      this.#models.set(name, e);
    }
    return e;
  }

  #resolveModel(name: string, version: number): Model | undefined {
    // A step no model of this repository has is looked for in the others (Triton's fuzzy match).
    if (this.#o.elsewhere && !this.#models.has(name)) return this.#o.elsewhere.resolve(name, version);
    try {
      return this.get(name, version === -1 || version === 0 ? undefined : String(version));
    } catch {
      return undefined;
    }
  }
}

/** The steps of a load before any version is tried; their failures are Triton's poll failures. */
async function polled<T>(name: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    throw pollFailure(name, withoutPath(name, e));
  }
}
