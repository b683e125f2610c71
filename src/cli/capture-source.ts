import { CAPTURE_DEFAULTS, groupRequests, readCaptureDir, readCaptureStream, type CapturedRequest } from '../capture/index.js';
import { Errors } from '../errors.js';
import type { FlagSpec } from './flags.js';

/** The flags `inspect` and `replay` share: where the records are and which requests to take. */
export const SOURCE_FLAGS: FlagSpec = {
  redis: { type: 'string' },
  stream: { type: 'string' },
  id: { type: 'string' },
  model: { type: 'string' },
  since: { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

export interface LoadedCaptures {
  /** How the source is named in messages. */
  source: string;
  requests: CapturedRequest[];
  unreadable: number;
}

/** The records of a capture directory (the positional) or of a Redis stream (--redis), grouped into requests. */
export async function loadCaptures(command: string, positionals: readonly string[], f: Record<string, unknown>): Promise<LoadedCaptures> {
  const redis = f.redis === undefined ? undefined : String(f.redis);
  if (positionals.length > 1) throw Errors.cliArgsInvalid(command, `one capture directory, got ${positionals.length}: ${positionals.join(' ')}`);
  const dir = positionals[0];
  if ((dir === undefined) === (redis === undefined)) throw Errors.cliArgsInvalid(command, 'name the capture directory, or --redis <host>:<port> for a Redis stream (one of the two)');
  if (redis !== undefined) {
    const m = /^(.+):(\d{1,5})$/.exec(redis);
    if (!m) throw Errors.cliFlagExpects('redis', '<host>:<port>', redis);
    const stream = f.stream === undefined ? CAPTURE_DEFAULTS.redisStream : String(f.stream);
    const r = await readCaptureStream(m[1]!, Number(m[2]), stream);
    return { source: `--redis ${redis}`, requests: groupRequests(r.records), unreadable: r.unreadable };
  }
  const r = await readCaptureDir(dir!);
  return { source: dir!, requests: groupRequests(r.records), unreadable: r.unreadable };
}

/** `--since`: an ISO time, or a span back from now (`30s`, `10m`, `2h`, `1d`). */
function sinceFlag(v: unknown, now = Date.now()): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  const m = /^(\d+(?:\.\d+)?)(s|m|h|d)$/.exec(s);
  if (m) return now - Number(m[1]) * { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3 }[m[2] as 's' | 'm' | 'h' | 'd'];
  const t = Date.parse(s);
  if (Number.isNaN(t)) throw Errors.cliFlagExpects('since', 'an ISO time (2025-01-31T12:00:00Z) or a span back from now (30s, 10m, 2h, 1d)', s);
  return t;
}

export function formatFlag(v: unknown): 'text' | 'json' {
  const s = v === undefined ? 'text' : String(v);
  if (s !== 'text' && s !== 'json') throw Errors.cliFlagChoice('format', 'text or json', s);
  return s;
}

/** Requests that pass the shared filters: --id (request id or capture id), --model (any record's model), --since. */
export function selectRequests(requests: readonly CapturedRequest[], f: Record<string, unknown>): CapturedRequest[] {
  const id = f.id === undefined ? undefined : String(f.id);
  const model = f.model === undefined ? undefined : String(f.model);
  const since = sinceFlag(f.since);
  return requests.filter((r) => (id === undefined || r.requestId === id || r.capture === id)
    && (model === undefined || r.records.some((x) => x.model === model))
    && (since === undefined || r.time >= since));
}

/** Indented JSON for the terminal; an integer past 2^53 (read exactly as a bigint) prints as a decimal string. */
export function jsonText(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x), 2) + '\n';
}
