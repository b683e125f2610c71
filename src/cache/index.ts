export type { CachedResponse, ResponseCache } from './response-cache.js';
export { parseCacheConfig } from './cache-settings.js';
export type { CacheSettings } from './cache-settings.js';
export { requestKey } from './request-key.js';
export { LocalCache } from './local-cache.js';
export { createResponseCache } from './create-response-cache.js';
