import type { Logger } from '../logger.js';
import type { CacheSettings } from './cache-settings.js';
import { LocalCache } from './local-cache.js';
import { RedisCache } from './redis-cache.js';
import type { ResponseCache } from './response-cache.js';

/** The server's one cache from its settings; a Redis cache is given a first chance to connect. */
export async function createResponseCache(s: CacheSettings, log: Logger): Promise<ResponseCache> {
  if (s.kind === 'local') {
    log.info(`response cache: local, ${s.size} bytes`);
    return new LocalCache(s.size);
  }
  const cache = new RedisCache(s, log);
  if (await cache.ready()) log.info(`response cache: Redis at ${s.host}:${s.port}`);
  return cache;
}
