import type { ModelConfig } from '../config/index.js';
import { isEnsemble } from '../config/index.js';
import { Errors, TributaryError, toTributaryError } from '../errors.js';
import type { Model } from '../model/index.js';
import { checkModelName } from '../paths/index.js';
import type { LoadOptions, ModelIndexEntry, ModelState } from './model-state.js';
import { findModels, listVersions } from './find-models.js';
import { fingerprint } from './fingerprint.js';
import { loadModelVersion, type LoadEnv } from './model-loader.js';
import { withoutPath } from './model-paths.js';
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

interface VersionEntry { version: number; state: ModelState; reason: string; model?: Model }
interface ModelEntry {
  name: string;
  dir?: string;
  versions: Map<number, VersionEntry>;
  fingerprint?: string;
  /** Composing models, for ensembles. */
  steps: string[];
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
  env: Omit<LoadEnv, 'resolveConfig'>;
  /** Bounds on the files one load request may send (default DEFAULT_UPLOAD_LIMITS: 2 GiB, 1000 files). */
  uploadLimits?: Partial<UploadLimits>;
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
    this.#env = { ...o.env, resolveConfig: (m, v) => this.#resolveConfig(m, v) };
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
    await Promise.all(names.filter((n) => found.has(n)).map((n) => this.#loadLogged(n)));
    this.#started = true;
    if (this.#o.mode === 'poll' && this.#o.pollSecs > 0) {
      this.#pollTimer = setInterval(() => void this.poll(), this.#o.pollSecs * 1000);
      this.#pollTimer.unref();
    }
  }

  async #loadLogged(name: string): Promise<void> {
    try {
      await this.#load(name, {}, [], 'server');
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
    await this.#load(name, options, [], 'api');
  }

  async #load(name: string, options: LoadOptions, chain: string[], origin: LoadOrigin): Promise<void> {
    checkModelName(name); // before the name reaches the model table or any path
    if (chain.includes(name)) throw Errors.modelLoadFailed(name, `ensemble dependency cycle: ${[...chain, name].join(' -> ')}`);
    const entry = this.#entry(name);
    while (entry.loading) await entry.loading.catch(() => undefined);
    if (origin === 'server') entry.blocksReadiness = true;
    const p = this.#doLoad(entry, options, [...chain, name], origin);
    entry.loading = p;
    try {
      await p;
      entry.blocksReadiness = false;
    } catch (e) {
      const err = toTributaryError(withoutPath(name, e));
      this.#recordFailure(entry, err);
      throw err;
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

  async #doLoad(entry: ModelEntry, options: LoadOptions, chain: string[], origin: LoadOrigin): Promise<void> {
    const name = entry.name;
    if (options.files && Object.keys(options.files).length) {
      if (options.config === undefined) throw Errors.loadParameterInvalid(name, "'file:' parameters need a 'config' parameter too (as in Triton)");
      // The config is checked before anything is written, so bad text costs no disk.
      const parsed = parseConfigOverride(name, options.config);
      const upload = await writeUpload(name, options.files, this.#limits);
      try {
        await this.#loadFrom(entry, upload.dir, parsed, chain, origin);
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
    await this.#loadFrom(entry, dir, await readModelConfig(dir, options.config, { relativeFile: true }), chain, origin);
    if (entry.scratch) {
      await removeUpload(entry.scratch);
      delete entry.scratch;
    }
  }

  async #loadFrom(entry: ModelEntry, dir: string, parsed: ReadConfig, chain: string[], origin: LoadOrigin): Promise<void> {
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
    for (const step of steps) {
      if (!this.#isLoaded(step)) await this.#load(step, {}, chain, origin);
    }
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
        const model = await loadModelVersion(parsed, dir, v, this.#env);
        return { v, model };
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
      } else {
        e.state = 'UNAVAILABLE';
        e.reason = r.error!.message;
        errors.push(r.error!);
      }
    }
    if (errors.length === results.length) {
      // Nothing loaded: keep what was being served before (a reload that fails changes nothing).
      for (const [v, e] of next) if (!old.get(v)?.model) old.set(v, e);
      throw combineFailures(name, results.map((r) => [r.v, r.error!] as const));
    }
    for (const [v, e] of old) if (e.model && next.get(v)?.model !== e.model) retired.push(e.model);
    entry.versions = next;
    entry.steps = steps;
    entry.fingerprint = fp;
    await Promise.all(retired.map((m) => this.#retire(m)));
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
      for (const [name, dir] of found) {
        const entry = this.#entry(name);
        entry.dir = dir;
        const fp = await fingerprint(dir);
        if (fp === entry.fingerprint) continue;
        // Remember the attempt, so a model that fails to load is retried when its files change
        // again, not on every poll.
        entry.fingerprint = fp;
        await this.#loadLogged(name);
      }
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
      if (e.state !== 'READY' || !e.model) throw Errors.modelNotReady(`${name}' version '${version}`, e.state, e.reason);
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

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    const all: Promise<void>[] = [];
    for (const entry of this.#models.values()) for (const e of entry.versions.values()) if (e.model) all.push(e.model.unload());
    await Promise.allSettled(all);
    await Promise.allSettled([...this.#models.values()].filter((e) => e.scratch).map((e) => removeUpload(e.scratch!)));
  }

  #isLoaded(name: string): boolean {
    const e = this.#models.get(name);
    return !!e && [...e.versions.values()].some((v) => v.state === 'READY');
  }

  #entry(name: string): ModelEntry {
    let e = this.#models.get(name);
    if (!e) {
      e = { name, versions: new Map(), steps: [] };
      this.#models.set(name, e);
    }
    return e;
  }

  #resolveConfig(name: string, version: number): ModelConfig | undefined {
    try {
      return this.get(name, version === -1 || version === 0 ? undefined : String(version)).config;
    } catch {
      return undefined;
    }
  }
}

/**
 * One error for a load where every version failed: the shared message once when the versions
 * failed alike (a config problem), else each version's reason.
 */
function combineFailures(name: string, failures: ReadonlyArray<readonly [number, TributaryError]>): TributaryError {
  const unique = new Set(failures.map(([, e]) => e.message));
  if (unique.size === 1) return failures[0]![1];
  const prefix = `failed to load '${name}': `;
  const strip = (m: string) => (m.startsWith(prefix) ? m.slice(prefix.length) : m);
  return Errors.modelLoadFailed(name, failures.map(([v, e]) => `version ${v}: ${strip(e.message)}`).join('; '));
}
