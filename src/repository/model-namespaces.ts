import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Observable } from 'rxjs';
import type { ModelHost } from '../backend/index.js';
import { Errors } from '../errors.js';
import type { InferenceResponse } from '../inference/index.js';
import type { Model } from '../model/index.js';
import type { LoadOptions, ModelIndexEntry } from './model-state.js';
import { ModelRepository, type RepositoryOptions } from './model-repository.js';

/** What the server asks of a repository: ModelRepository's public face. */
export type Repository = Pick<ModelRepository, keyof ModelRepository>;

/** How one namespace's pipelines reach the models held by the other namespaces. */
export interface OtherNamespaces {
  /** The ready model of that name the other repositories hold, when exactly one holds it. */
  resolve(name: string, version: number): Model | undefined;
  knownModels(): readonly string[];
  /** Load pipeline `by`'s step from the one other repository that has it, before the pipeline compiles. */
  load(name: string, by: string): Promise<void>;
}

/** A repository path and the models it holds. */
interface Space { path: string; repo: ModelRepository }

/** One repository for --model-namespacing=false, one namespace per repository path when true. */
export function createRepository(o: RepositoryOptions, namespacing: boolean): Repository {
  return namespacing && o.paths.length > 1 ? new ModelNamespaces(o) : new ModelRepository(o);
}

/**
 * tritonserver's --model-namespacing=true: each repository path is a namespace, so models of one
 * name in several repositories are all served. As in Triton (model_repository_manager.cc): a
 * request names a model only, so it reaches the one model of that name or fails INVALID_ARG when
 * several hold it; a pipeline's step is its own repository's model first, else the only one
 * elsewhere; load and unload by name act on every repository that has the name; the index lists
 * each, under the same name.
 */
class ModelNamespaces implements Repository {
  readonly #o: RepositoryOptions;
  readonly #spaces: Space[];
  /** Cross-repository step loads in progress: "<space>:<pipeline>" -> "<space>:<step>" it waits for. */
  readonly #waits = new Map<string, string>();

  constructor(o: RepositoryOptions) {
    this.#o = o;
    this.#spaces = o.paths.map((path) => {
      // `repo` is set two lines below; the host and `elsewhere` only read it once requests arrive.
      const space = { path } as Space;
      // Pipelines and BLS calls of this repository reach its own models first, as Triton's
      // ensemble steps do (their model_namespace is set to the ensemble's own namespace).
      const host: ModelHost = { infer: (request) => this.#inferFrom(space.repo, request.model, request.version, (m) => m.infer(request)) };
      space.repo = new ModelRepository({ ...o, paths: [path], env: { ...o.env, host }, elsewhere: this.#elsewhere(space) });
      return space;
    });
  }

  get mode(): RepositoryOptions['mode'] {
    return this.#o.mode;
  }

  async start(loadModels: readonly string[] = []): Promise<void> {
    if (this.#o.mode !== 'explicit' || loadModels.includes('*')) {
      await Promise.all(this.#spaces.map((s) => s.repo.start(loadModels)));
      return;
    }
    // Each namespace loads the named models it has; a name none has is reported once, by the first.
    const where = await Promise.all(loadModels.map(async (n) => [n, await this.#onDisk(n)] as const));
    await Promise.all(this.#spaces.map((s, i) => s.repo.start(where.filter(([, at]) => at.includes(s) || (at.length === 0 && i === 0)).map(([n]) => n))));
  }

  /** Triton loads every model of the name its repositories have (each with the same parameters). */
  async load(name: string, options: LoadOptions = {}): Promise<void> {
    let targets = await this.#onDisk(name);
    if (targets.length === 0) targets = this.#holders(name);
    if (targets.length === 0) targets = [this.#spaces[0]!];
    const results = await Promise.allSettled(targets.map((s) => s.repo.load(name, options)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Triton unloads every model of the name (LoadUnloadModels takes all identifiers of the global map). */
  async unload(name: string, options: { unloadDependents?: boolean } = {}): Promise<void> {
    const known = this.#spaces.filter((s) => s.repo.presence(name) !== undefined);
    if (known.length === 0) return this.#spaces[0]!.repo.unload(name, options);
    await Promise.all(known.map((s) => s.repo.unload(name, options)));
  }

  async poll(): Promise<void> {
    await Promise.all(this.#spaces.map((s) => s.repo.poll()));
  }

  get(name: string, version?: string): Model {
    return this.#pick(name).get(name, version);
  }

  versions(name: string): number[] {
    const held = this.#holders(name);
    return held.length === 1 ? held[0]!.repo.versions(name) : [];
  }

  readyModels(): Model[] {
    return this.#spaces.flatMap((s) => s.repo.readyModels());
  }

  /** Every namespace's models under their own names, so a name held twice is listed twice, as in Triton. */
  async index(options: { ready?: boolean } = {}): Promise<ModelIndexEntry[]> {
    const all = (await Promise.all(this.#spaces.map((s) => s.repo.index(options)))).flat();
    return all.sort((a, b) => a.name.localeCompare(b.name));
  }

  isReady(): boolean {
    return this.#spaces.every((s) => s.repo.isReady());
  }

  readinessBlockers(): string[] {
    return this.#spaces.flatMap((s) => s.repo.readinessBlockers().map((b) => (this.#spaces.length > 1 && b.startsWith("'") ? `${b} in ${s.path}` : b)));
  }

  loadMs(name: string, version: string): number | undefined {
    const held = this.#holders(name);
    return held.length === 1 ? held[0]!.repo.loadMs(name, version) : undefined;
  }

  presence(name: string): ReturnType<ModelRepository['presence']> {
    const states = this.#spaces.map((s) => s.repo.presence(name));
    return states.find((p) => p === 'loading') ?? states.find((p) => p === 'loaded') ?? states.find((p) => p !== undefined);
  }

  async close(): Promise<void> {
    await Promise.all(this.#spaces.map((s) => s.repo.close()));
  }

  /** The namespaces whose table holds the name (Triton's global map entry for it). */
  #holders(name: string): Space[] {
    return this.#spaces.filter((s) => {
      const p = s.repo.presence(name);
      return p === 'loaded' || p === 'loading';
    });
  }

  /** The one namespace a request naming `name` reaches; with none, one that answers "not found" or "unloaded". */
  #pick(name: string): ModelRepository {
    const held = this.#holders(name);
    if (held.length > 1) throw Errors.modelAmbiguous(name, held.map((s) => s.path));
    if (held.length === 1) return held[0]!.repo;
    return (this.#spaces.find((s) => s.repo.presence(name) !== undefined) ?? this.#spaces[0]!).repo;
  }

  #inferFrom(own: ModelRepository, name: string, version: string | undefined, run: (m: Model) => Observable<InferenceResponse>): Observable<InferenceResponse> {
    return new Observable<InferenceResponse>((subscriber) => {
      let model: Model;
      try {
        const p = own.presence(name);
        model = p === 'loaded' || p === 'loading' ? own.get(name, version) : this.get(name, version);
      } catch (e) {
        subscriber.error(e);
        return undefined;
      }
      return run(model).subscribe(subscriber);
    });
  }

  #elsewhere(space: Space): OtherNamespaces {
    const others = () => this.#spaces.filter((s) => s !== space);
    return {
      resolve: (name, version) => {
        const held = others().filter((s) => s.repo.presence(name) === 'loaded');
        if (held.length !== 1) return undefined;
        try {
          return held[0]!.repo.get(name, version === -1 || version === 0 ? undefined : String(version));
        } catch {
          return undefined;
        }
      },
      // For a "did you mean" on an unknown step: the models the other repositories serve.
      knownModels: () => [...new Set(others().flatMap((s) => s.repo.readyModels().map((m) => m.config.name)))],
      load: async (name, by) => {
        const at = (await this.#onDisk(name)).filter((s) => s !== space);
        if (at.length !== 1) return;
        const other = at[0]!.repo;
        const from = `${this.#spaces.indexOf(space)}:${by}`;
        const to = `${this.#spaces.indexOf(at[0]!)}:${name}`;
        // Pipelines of two repositories that use each other would wait on each other's loads
        // forever: leave the step to the compile, which reports it.
        for (let n: string | undefined = to; n; n = this.#waits.get(n)) if (n === from) return;
        this.#waits.set(from, to);
        try {
          // Loaded by its own repository's start already, or being loaded: wait rather than load twice.
          while (other.presence(name) === 'loading') await new Promise((r) => setTimeout(r, 5));
          if (other.versions(name).length === 0) await other.load(name).catch(() => undefined);
        } finally {
          this.#waits.delete(from);
        }
      },
    };
  }

  /** The namespaces with a directory of that name on disk. */
  async #onDisk(name: string): Promise<Space[]> {
    if (!name || name.includes('/') || name.includes('\\') || name.startsWith('.')) return [];
    const has = await Promise.all(this.#spaces.map(async (s) => (await stat(join(resolve(s.path), name)).catch(() => undefined))?.isDirectory() === true));
    return this.#spaces.filter((_, i) => has[i]);
  }
}
