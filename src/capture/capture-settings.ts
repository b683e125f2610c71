import { Errors } from '../errors.js';

/** What `--capture-config KEY=VALUE ...` asks for, checked; see docs/capture-and-replay.md. */
export interface CaptureSettings {
  /** Local sink: append-only JSON Lines files in this directory. */
  dir?: string;
  /** CloudEvents sink (KServe's inference-logger form): each captured request and response POSTed here. */
  url?: string;
  /** Redis Streams sink: `XADD` to `redisStream` on this server. */
  redis?: { host: string; port: number };
  redisStream: string;
  /** The stream's approximate length cap (`XADD ... MAXLEN ~ n`). */
  redisMaxLen: number;
  /** Fraction of top-level requests captured whole, 0..1. */
  rate: number;
  /** Models whose requests are captured; empty = every model. */
  models: ReadonlySet<string>;
  /** Tensor bytes kept in one record; past it a tensor is summarised (shape, datatype, SHA-256). */
  maxBytes: number;
  /** Tensors (by name, at any step) never recorded: shape, datatype and SHA-256 only. */
  redact: ReadonlySet<string>;
  /** Records waiting for the sinks, and their tensor bytes; past either, records are dropped (counted). */
  queueRecords: number;
  queueBytes: number;
  /** Records of one request; past it the request's further records are dropped (counted). */
  requestRecords: number;
  /** Failed requests captured per second beyond the sampled ones (0 = only sampled ones). */
  failures: number;
  /** One capture file's size before a new one is started, and how many files are kept. */
  fileBytes: number;
  files: number;
  /** The CloudEvents `ce-source` attribute. */
  source: string;
}

const MIB = 1024 * 1024;

export const CAPTURE_DEFAULTS = {
  redisStream: 'tributary:capture', redisMaxLen: 100_000, rate: 1, maxBytes: MIB, queueRecords: 4096,
  queueBytes: 64 * MIB, requestRecords: 1024, failures: 100, fileBytes: 64 * MIB, files: 8, source: 'tributary',
} as const;

const INTEGERS: Readonly<Record<string, [keyof CaptureSettings, number]>> = {
  'max-bytes': ['maxBytes', 0], queue: ['queueRecords', 1], 'queue-bytes': ['queueBytes', 1], 'request-records': ['requestRecords', 1],
  failures: ['failures', 0], 'file-bytes': ['fileBytes', 4096], files: ['files', 1], 'redis-maxlen': ['redisMaxLen', 1],
};
const KEYS = ['dir', 'url', 'redis', 'redis-stream', 'rate', 'models', 'redact', 'source', ...Object.keys(INTEGERS)];

const bad = (entry: string, detail: string) => Errors.captureConfigInvalid(entry, detail);
const names = (v: string) => new Set(v.split(',').map((s) => s.trim()).filter(Boolean));

/**
 * `--capture-config` entries (repeatable; a later key wins) to settings; undefined when none is
 * given. At least one sink (dir, url, redis) is required: a capture that writes nowhere is a typo.
 */
export function parseCaptureConfig(entries: readonly string[]): CaptureSettings | undefined {
  if (entries.length === 0) return undefined;
  const s: CaptureSettings = { ...CAPTURE_DEFAULTS, models: new Set(), redact: new Set() };
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const key = eq > 0 ? entry.slice(0, eq).trim() : '';
    const value = entry.slice(eq + 1).trim();
    if (!KEYS.includes(key)) throw bad(entry, `expected <key>=<value> with a key of ${KEYS.join(', ')}`);
    const int = INTEGERS[key];
    if (int) {
      const n = Number(value);
      if (value === '' || !Number.isSafeInteger(n) || n < int[1]) throw bad(entry, `${key} is an integer >= ${int[1]}`);
      (s as unknown as Record<string, number>)[int[0]] = n;
    } else if (key === 'rate') {
      const r = Number(value);
      if (value === '' || !(r >= 0 && r <= 1)) throw bad(entry, 'rate is a fraction from 0 to 1 (0.01 captures one request in a hundred)');
      s.rate = r;
    } else if (key === 'dir') {
      if (value === '' || value.includes('\0')) throw bad(entry, 'dir names a directory');
      s.dir = value;
    } else if (key === 'url') {
      let u: URL;
      try { u = new URL(value); } catch { throw bad(entry, 'url is an http:// or https:// URL'); }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad(entry, 'url is an http:// or https:// URL');
      s.url = value;
    } else if (key === 'redis') {
      const m = /^(.+):(\d{1,5})$/.exec(value);
      const port = m ? Number(m[2]) : 0;
      if (!m || port < 1 || port > 65535) throw bad(entry, 'redis is <host>:<port>, e.g. 127.0.0.1:6379');
      s.redis = { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port };
    } else if (key === 'redis-stream') {
      if (value === '') throw bad(entry, 'redis-stream names a stream key');
      s.redisStream = value;
    } else if (key === 'source') {
      if (value === '') throw bad(entry, 'source is a URI reference (the CloudEvents ce-source)');
      s.source = value;
    } else if (key === 'models') s.models = names(value);
    else s.redact = names(value);
  }
  if (s.dir === undefined && s.url === undefined && s.redis === undefined) {
    throw bad(entries.join(' '), 'name where records go: dir=<directory>, url=<CloudEvents receiver> or redis=<host>:<port>');
  }
  return s;
}
