import { Errors } from '../errors.js';
import type { BackendFactory } from './backend.js';

/**
 * Backends register through an explicit call made by the composition root (server/), so
 * importing a backend module has no side effects.
 */
export class BackendRegistry {
  readonly #byName = new Map<string, BackendFactory>();
  readonly #byPlatform = new Map<string, BackendFactory>();

  register(factory: BackendFactory): this {
    this.#byName.set(factory.name, factory);
    for (const p of factory.platforms ?? []) this.#byPlatform.set(p, factory);
    return this;
  }

  /** The backend for a config's `backend` or `platform` field. */
  resolve(model: string, backend: string, platform: string): BackendFactory {
    const f = (backend && this.#byName.get(backend)) || (platform && this.#byPlatform.get(platform));
    if (!f) throw Errors.backendUnknown(model, backend || platform || '(none)', this.names());
    return f;
  }

  get(name: string): BackendFactory | undefined {
    return this.#byName.get(name);
  }

  names(): string[] {
    return [...this.#byName.keys()];
  }
}
