import { Errors } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RateLimitResource } from '../scheduler/index.js';
import { listFlag } from './flags.js';

type FlagValues = Record<string, unknown>;

/**
 * --rate-limit and --rate-limit-resource, with tritonserver's syntax. Instances run on one CPU
 * device here, Triton's device 0, so a resource for another device could never be used: it is
 * refused rather than silently dropped.
 */
export function rateLimitFromFlags(f: FlagValues, log: Logger): { rateLimit: 'off' | 'execution_count'; rateLimitResources: RateLimitResource[] } {
  const mode = String(f['rate-limit'] ?? 'off').toLowerCase();
  if (mode !== 'off' && mode !== 'execution_count') throw Errors.cliFlagChoice('rate-limit', 'off or execution_count', String(f['rate-limit']));
  const resources = listFlag(f['rate-limit-resource']).map(parseResource);
  if (mode === 'off' && resources.length) log.warn('--rate-limit-resource has no effect with --rate-limit=off (the default); add --rate-limit=execution_count');
  return { rateLimit: mode, rateLimitResources: resources };
}

function parseResource(v: string): RateLimitResource {
  const parts = v.split(':');
  const count = Number(parts[1]);
  if (parts.length < 2 || parts.length > 3 || !parts[0] || !/^\d+$/.test(parts[1] ?? '') || !Number.isSafeInteger(count)) {
    throw Errors.cliFlagExpects('rate-limit-resource', '<name>:<count>[:<device>] with a whole count', v);
  }
  if (parts.length === 2) return { name: parts[0], count };
  if (!/^\d+$/.test(parts[2]!)) throw Errors.cliFlagExpects('rate-limit-resource', '<name>:<count>[:<device>] with a whole device id', v);
  const device = Number(parts[2]);
  if (device !== 0) throw Errors.cliFlagRefused('rate-limit-resource', v, `device ${device} does not exist: tributary runs every instance on the CPU, device 0`, `${parts[0]}:${count}:0 or ${parts[0]}:${count}`);
  return { name: parts[0], count, device };
}
