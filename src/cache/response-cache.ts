import type { Parameters } from '../inference/index.js';
import type { Tensor } from '../tensor/index.js';

/** What a hit gives back: the response's outputs (already filtered and classified) and parameters. */
export interface CachedResponse {
  readonly outputs: readonly Tensor[];
  readonly parameters?: Parameters;
}

/**
 * The server-wide response cache (Triton's TRITONCACHE implementation: one per server, shared by
 * every model). A local cache answers synchronously so a hit costs no promise turn; a remote one
 * (Redis) answers with a promise. Neither throws: a cache that cannot answer is a miss, as Triton
 * falls back to running the model while its Redis is down.
 */
export interface ResponseCache {
  readonly kind: 'local' | 'redis';
  lookup(key: string): CachedResponse | undefined | Promise<CachedResponse | undefined>;
  /** Store a copy of the response (the caller keeps ownership of its tensors). */
  insert(key: string, response: CachedResponse): void;
  close(): Promise<void>;
}
