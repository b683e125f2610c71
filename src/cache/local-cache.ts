import { packResponse, packedSize, unpackResponse } from './packed-response.js';
import type { CachedResponse, ResponseCache } from './response-cache.js';

interface Entry { readonly response: CachedResponse; readonly size: number }

/**
 * Triton's `local` cache: in process memory, shared by every model, least recently used first out
 * within `size` bytes. An entry is charged its output bytes plus a fixed overhead; one larger than
 * the whole budget is not stored (it would evict everything and still not fit).
 */
export class LocalCache implements ResponseCache {
  readonly kind = 'local';
  readonly size: number;
  /** A Map iterates in insertion order: re-inserting on a hit makes the first key the least recent. */
  readonly #entries = new Map<string, Entry>();
  #used = 0;
  #evictions = 0;

  constructor(size: number) {
    this.size = size;
  }

  lookup(key: string): CachedResponse | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e.response;
  }

  insert(key: string, response: CachedResponse): void {
    const packed = packResponse(response);
    const size = packedSize(key, packed);
    if (size > this.size) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#used -= old.size;
    }
    while (this.#used + size > this.size) {
      const [k, e] = this.#entries.entries().next().value as [string, Entry];
      this.#entries.delete(k);
      this.#used -= e.size;
      this.#evictions++;
    }
    // Unpacked once here: every hit then shares the same immutable tensor views.
    this.#entries.set(key, { response: unpackResponse(packed), size });
    this.#used += size;
  }

  /** Entries, bytes charged and evictions so far (for tests and the benchmark). */
  usage(): { entries: number; bytes: number; evictions: number } {
    return { entries: this.#entries.size, bytes: this.#used, evictions: this.#evictions };
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#used = 0;
  }
}
