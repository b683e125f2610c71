import { Errors } from '../errors.js';

interface LocalCacheSettings { kind: 'local'; size: number }

export interface RedisCacheSettings {
  kind: 'redis';
  host: string;
  port: number;
  user?: string;
  password?: string;
  db?: number;
  /** ms; 0 = wait forever (the redis_cache default). */
  connectTimeoutMs: number;
  /** ms; 0 = wait forever. */
  socketTimeoutMs: number;
}

export type CacheSettings = LocalCacheSettings | RedisCacheSettings;

// The keys triton-inference-server/redis_cache reads; pool_size and wait_timeout are accepted for
// compatibility but have no effect: one pipelined connection serves every request.
const REDIS_KEYS = ['host', 'port', 'user', 'password', 'db', 'connect_timeout', 'socket_timeout', 'pool_size', 'wait_timeout'];

/**
 * tritonserver's `--cache-config <cache>,<key>=<value>` (repeatable; the keys of one cache add up)
 * and the older `--response-cache-byte-size <bytes>` (= `local,size=<bytes>`). Undefined: no cache.
 */
export function parseCacheConfig(args: readonly string[], responseCacheByteSize?: number): CacheSettings | undefined {
  const byCache = new Map<string, Map<string, string>>();
  for (const arg of args) {
    const comma = arg.indexOf(',');
    const name = (comma < 0 ? arg : arg.slice(0, comma)).trim();
    const pair = comma < 0 ? '' : arg.slice(comma + 1);
    const eq = pair.indexOf('=');
    if (!name || eq <= 0) throw Errors.cacheConfigInvalid(arg, "expected '<cache>,<key>=<value>', e.g. 'local,size=1048576'");
    if (name !== 'local' && name !== 'redis') throw Errors.cacheConfigInvalid(arg, `unknown cache ${JSON.stringify(name)}; tributary has 'local' and 'redis'`);
    let keys = byCache.get(name);
    if (!keys) byCache.set(name, (keys = new Map()));
    keys.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  if (responseCacheByteSize !== undefined && responseCacheByteSize > 0) {
    if (byCache.size && !byCache.has('local')) throw Errors.cacheConfigInvalid([...byCache.keys()].join(','), `--response-cache-byte-size=${responseCacheByteSize} selects the local cache; give only one of the two`);
    let keys = byCache.get('local');
    if (!keys) byCache.set('local', (keys = new Map()));
    if (!keys.has('size')) keys.set('size', String(responseCacheByteSize));
  }
  if (byCache.size > 1) throw Errors.cacheConfigInvalid([...byCache.keys()].join(' and '), 'a server has one cache; configure either local or redis');
  const [name, keys] = [...byCache][0] ?? [];
  if (!name || !keys) return undefined;
  return name === 'local' ? localSettings(keys) : redisSettings(keys);
}

function localSettings(keys: Map<string, string>): LocalCacheSettings | undefined {
  for (const k of keys.keys()) if (k !== 'size') throw Errors.cacheConfigInvalid(`local,${k}=${keys.get(k)}`, "the local cache has one setting: size=<bytes>");
  const raw = keys.get('size');
  if (raw === undefined) throw Errors.cacheConfigInvalid('local', 'give its size in bytes: --cache-config local,size=<bytes>');
  const size = integer('local', 'size', raw);
  // Triton treats a zero size as no cache (--response-cache-byte-size 0 was its "off").
  return size > 0 ? { kind: 'local', size } : undefined;
}

function redisSettings(keys: Map<string, string>): RedisCacheSettings {
  for (const k of keys.keys()) {
    if (!REDIS_KEYS.includes(k)) throw Errors.cacheConfigInvalid(`redis,${k}=${keys.get(k)}`, `unknown redis setting; known: ${REDIS_KEYS.join(', ')}`);
  }
  const host = keys.get('host');
  const port = keys.get('port');
  if (!host || port === undefined) throw Errors.cacheConfigInvalid('redis', 'host and port are required: --cache-config redis,host=<host> --cache-config redis,port=<port>');
  const s: RedisCacheSettings = {
    kind: 'redis', host, port: integer('redis', 'port', port),
    connectTimeoutMs: integer('redis', 'connect_timeout', keys.get('connect_timeout') ?? '0'),
    socketTimeoutMs: integer('redis', 'socket_timeout', keys.get('socket_timeout') ?? '0'),
  };
  const user = keys.get('user');
  const password = keys.get('password');
  const db = keys.get('db');
  if (user) s.user = user;
  if (password) s.password = password;
  if (db !== undefined) s.db = integer('redis', 'db', db);
  return s;
}

function integer(cache: string, key: string, raw: string): number {
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw Errors.cacheConfigInvalid(`${cache},${key}=${raw}`, `${key} must be a non-negative integer`);
  return Number(raw);
}
