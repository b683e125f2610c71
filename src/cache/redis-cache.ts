import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { RedisCacheSettings } from './cache-settings.js';
import { decodePacked, encodePacked, packResponse, unpackResponse } from './packed-response.js';
import type { CachedResponse, ResponseCache } from './response-cache.js';

/** Keys carry a prefix so a Redis shared with other applications keeps them apart. */
const KEY_PREFIX = 'tributary:response:';

/**
 * Triton's `redis` cache: entries live in a Redis server that several replicas share, with Redis's
 * own eviction (its maxmemory policy) in place of a byte budget here. While Redis is unreachable
 * every lookup is a miss and nothing is stored (commands fail at once instead of queueing), as
 * Triton keeps serving without its cache and logs the outage; one line per outage, not per request.
 */
export class RedisCache implements ResponseCache {
  readonly kind = 'redis';
  readonly #client: Redis;
  readonly #log: Logger;
  #down = false;

  constructor(s: RedisCacheSettings, log: Logger) {
    this.#log = log;
    this.#client = new Redis({
      host: s.host, port: s.port, db: s.db ?? 0,
      ...(s.user ? { username: s.user } : {}),
      ...(s.password ? { password: s.password } : {}),
      ...(s.connectTimeoutMs ? { connectTimeout: s.connectTimeoutMs } : {}),
      ...(s.socketTimeoutMs ? { commandTimeout: s.socketTimeoutMs } : {}),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnect forever with a bounded back-off: Redis may come back at any time.
      retryStrategy: (times) => Math.min(times * 100, 2000),
    });
    this.#client.on('error', (e: Error) => this.#outage(e));
    this.#client.on('ready', () => {
      if (this.#down) log.info(`response cache: Redis at ${s.host}:${s.port} is reachable again`);
      this.#down = false;
    });
  }

  /** Resolves once connected (or fails): lets a server start with its cache ready. */
  async ready(): Promise<boolean> {
    if (this.#client.status === 'ready') return true;
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        this.#client.off('ready', onReady);
        this.#client.off('error', onError);
        resolve(ok);
      };
      const onReady = () => done(true);
      const onError = () => done(false);
      this.#client.once('ready', onReady);
      this.#client.once('error', onError);
    });
  }

  async lookup(key: string): Promise<CachedResponse | undefined> {
    try {
      const b = await this.#client.getBuffer(KEY_PREFIX + key);
      const packed = b ? decodePacked(b) : undefined;
      return packed ? unpackResponse(packed) : undefined;
    } catch (e) {
      this.#outage(e as Error);
      return undefined;
    }
  }

  insert(key: string, response: CachedResponse): void {
    const value = encodePacked(packResponse(response));
    this.#client.set(KEY_PREFIX + key, value).catch((e: Error) => this.#outage(e));
  }

  async close(): Promise<void> {
    this.#client.disconnect();
  }

  #outage(e: Error): void {
    if (this.#down) return;
    this.#down = true;
    this.#log.error(`response cache: Redis is unreachable (${e.message}); requests run their models uncached until it is back`);
  }
}
