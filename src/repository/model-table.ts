import { Errors } from '../errors.js';
import type { Model } from '../model/index.js';
import type { ModelState } from './model-state.js';

/**
 * Who asked for a load. The server's own loads (start-up, --load-model, poll) hold readiness while
 * they run and after they fail; a client's load through the repository API never does, so that no
 * request can take the server out of readiness.
 */
export type LoadOrigin = 'server' | 'api';

export interface VersionEntry { version: number; state: ModelState; reason: string; model?: Model; loadMs?: number }

export interface ModelEntry {
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

/** The model table of one repository and the questions asked of it while serving. */
export class ModelTable {
  readonly models = new Map<string, ModelEntry>();

  /** The entry of a model, created empty the first time the name is seen. */
  entry(name: string): ModelEntry {
    let e = this.models.get(name);
    if (!e) {
      e = { name, versions: new Map(), steps: [], stepAt: new Map() };
      this.models.set(name, e);
    }
    return e;
  }

  isLoaded(name: string): boolean {
    const e = this.models.get(name);
    return !!e && [...e.versions.values()].some((v) => v.state === 'READY');
  }

  /** What a model depends on now: the steps its serving version uses, and the load it waits for. */
  dependsOn(name: string): string[] {
    const e = this.models.get(name);
    if (!e) return [];
    const out = this.isLoaded(name) ? [...e.steps] : [];
    if (e.waitingOn) out.push(e.waitingOn);
    return out;
  }

  /** The model serving a request: a given version, or the highest READY one. */
  get(name: string, version?: string): Model {
    const entry = this.models.get(name);
    if (!entry) throw Errors.modelNotFound(name, version || undefined);
    if (version) {
      const e = /^[0-9]+$/.test(version) ? entry.versions.get(Number(version)) : undefined;
      if (!e) throw Errors.modelNotFound(name, version);
      if (e.state !== 'READY' || !e.model) throw Errors.modelNotReady(name, version, e.state, e.reason);
      return e.model;
    }
    let best: VersionEntry | undefined;
    for (const e of entry.versions.values()) if (e.state === 'READY' && e.model && (!best || e.version > best.version)) best = e;
    if (!best) {
      const any = [...entry.versions.values()][0];
      throw Errors.modelNoVersions(name, any?.state ?? 'UNAVAILABLE', any?.reason || 'not loaded');
    }
    return best.model!;
  }

  /** Versions of a model and their states (for metadata). */
  versions(name: string): number[] {
    return [...(this.models.get(name)?.versions.values() ?? [])].filter((e) => e.state === 'READY').map((e) => e.version).sort((a, b) => a - b);
  }

  readyModels(): Model[] {
    const out: Model[] = [];
    for (const entry of this.models.values()) for (const e of entry.versions.values()) if (e.state === 'READY' && e.model) out.push(e.model);
    return out;
  }

  /** How long a served version took to load, in ms (from reading its files to ready). */
  loadMs(name: string, version: string): number | undefined {
    return this.models.get(name)?.versions.get(Number(version))?.loadMs;
  }

  /**
   * Whether this repository holds a model of the name, for --model-namespacing: 'loaded' once a
   * load was tried and not undone by an unload (Triton keeps such a model in its global map),
   * 'loading' while one runs, 'listed' when it is only on disk or was unloaded.
   */
  presence(name: string): 'loaded' | 'loading' | 'listed' | undefined {
    const e = this.models.get(name);
    if (!e) return undefined;
    if (e.loading) return 'loading';
    return [...e.versions.values()].some((v) => v.reason !== 'unloaded') ? 'loaded' : 'listed';
  }
}
