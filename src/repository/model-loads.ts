import { experimentModelPath, experimentModels, isEnsemble, isExperiment, pipelineStepModels, positionOf } from '../config/index.js';
import { Errors, TributaryError, toTributaryError } from '../errors.js';
import { checkModelName } from '../paths/index.js';
import type { LoadOptions } from './model-state.js';
import { findModels, listVersions } from './find-models.js';
import { findDependencyCycle } from './find-dependency-cycle.js';
import { loadFailure, pollFailure } from './load-failure.js';
import { loadVersions } from './load-versions.js';
import type { LoadEnv } from './model-loader.js';
import { withoutPath } from './model-paths.js';
import type { LoadOrigin, ModelEntry, ModelTable } from './model-table.js';
import type { RepositoryOptions } from './model-repository.js';
import { parseConfigOverride, readModelConfig, type ReadConfig } from './read-model-config.js';
import { removeUpload, writeUpload, type UploadLimits } from './upload-files.js';
import { selectVersions } from './version-policy.js';

/**
 * The load path of one repository: a model's config (from its directory or the request), its
 * pipeline's composing models first, then every version its policy selects, with retries.
 */
export class ModelLoads {
  readonly #table: ModelTable;
  readonly #o: RepositoryOptions;
  readonly #env: LoadEnv;
  readonly #limits: UploadLimits;

  constructor(table: ModelTable, o: RepositoryOptions, env: LoadEnv, limits: UploadLimits) {
    this.#table = table;
    this.#o = o;
    this.#env = env;
    this.#limits = limits;
  }

  async load(name: string, options: LoadOptions, origin: LoadOrigin): Promise<void> {
    checkModelName(name); // before the name reaches the model table or any path
    const entry = this.#table.entry(name);
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
      this.#table.models.delete(entry.name); // never existed: leave no trace in the index
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
        if (i >= retries || Errors.modelNotFound.is(err) || Errors.loadPollFailed.is(err) || Errors.loadRefused.is(err) || Errors.loadParameterInvalid.is(err)) throw e;
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
    // An experiment's variants and mirror are its dependencies, as a pipeline's steps are.
    const experiment = isExperiment(config);
    const steps = isEnsemble(config) ? pipelineStepModels(config) : experiment ? experimentModels(config) : [];
    for (const step of steps) {
      try {
        checkModelName(step);
      } catch (e) {
        throw toTributaryError(e).withContext(`failed to load '${name}': ${experiment ? 'experiment model' : 'ensemble_scheduling step model_name'}`);
      }
    }
    await this.#loadSteps(entry, steps, parsed, origin);
    const available = await listVersions(dir);
    if ((isEnsemble(config) || experiment) && available.length === 0) available.push(1);
    const chosen = selectVersions(config.version_policy, available);
    if (chosen.length === 0) {
      throw Errors.modelLoadFailed(name, `no version directory of the model matches its version_policy (found: ${available.join(', ') || 'none'})`);
    }
    await loadVersions(entry, dir, parsed, chosen, steps, this.#env);
  }

  /**
   * Load the composing models a pipeline names that are not serving yet. Each dependency is first
   * checked against the loop it would close: pipelines that use each other would otherwise wait on
   * each other's loads forever (find-dependency-cycle.ts).
   */
  async #loadSteps(entry: ModelEntry, steps: readonly string[], parsed: ReadConfig, origin: LoadOrigin): Promise<void> {
    const named = parsed.config.ensemble_scheduling?.step ?? [];
    for (const step of steps) {
      const path = isExperiment(parsed.config) ? experimentModelPath(parsed.config, step) : `ensemble_scheduling.step[${named.findIndex((s) => s.model_name === step)}].model_name`;
      const at = positionOf(parsed, path);
      entry.stepAt.set(step, `${at.file}:${at.line}:${at.col}`);
    }
    for (const step of steps) {
      const cycle = findDependencyCycle(entry.name, step, (m) => this.#table.dependsOn(m));
      if (cycle) {
        const links = cycle.slice(1).map((to, i) => `${this.#table.models.get(cycle[i]!)?.stepAt.get(to) ?? cycle[i]} uses '${to}'`);
        throw Errors.dependencyCycle(entry.name, cycle, links);
      }
      if (this.#table.isLoaded(step)) continue;
      // A step in no repository is left to the pipeline's compile, which names it at its
      // file:line:col with a "did you mean", as `tributary validate` does.
      if (!(await this.#inRepository(step))) {
        await this.#o.elsewhere?.load(step, entry.name);
        continue;
      }
      entry.waitingOn = step;
      try {
        await this.load(step, {}, origin);
      } finally {
        entry.waitingOn = undefined;
      }
    }
  }

  async #inRepository(name: string): Promise<boolean> {
    const e = this.#table.models.get(name);
    if (e?.dir) return true;
    const dir = (await findModels(this.#o.paths).catch(() => new Map<string, string>())).get(name);
    if (dir) this.#table.entry(name).dir = dir;
    return dir !== undefined;
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
