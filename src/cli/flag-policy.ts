import { Errors } from '../errors.js';
import type { Logger } from '../logger.js';
import { boolFlag, intFlag, listFlag } from './flags.js';
import { SERVE_FLAGS, type ServeFlag } from './serve-flags.js';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Checks a value as tritonserver's parser would (its integers are C ints). */
function checkValue(f: ServeFlag, value: string): void {
  if (f.kind === 'int') intFlag(f.name, value, 0, INT32_MIN, INT32_MAX);
  else if (f.kind === 'bool') boolFlag(f.name, value, false);
  else if (f.kind === 'float' && (value.trim() === '' || !Number.isFinite(Number(value)))) throw Errors.cliFlagExpects(f.name, 'a number', value);
}

function accepted(f: ServeFlag, value: string): boolean {
  if (!f.accepts) return false;
  if (f.kind === 'bool') return f.accepts.some((a) => boolFlag(f.name, a, false) === boolFlag(f.name, value, false));
  if (f.kind === 'int' || f.kind === 'float') return f.accepts.some((a) => Number(a) === Number(value));
  return f.accepts.some((a) => a.toLowerCase() === value.toLowerCase());
}

/**
 * The flags the table does not mark implemented: each given one is validated as its kind, then a
 * refused one stops the start (INVALID_ARG, exit 2) unless its value asks for nothing, and a
 * no-effect one is logged as a warning saying why. Runs before any model loads.
 */
export function applyFlagPolicy(values: Readonly<Record<string, unknown>>, log: Logger, flags: readonly ServeFlag[] = SERVE_FLAGS): void {
  for (const f of flags) {
    const v = values[f.name];
    if (v === undefined || f.status === 'implemented') continue;
    const given = f.kind === 'none' ? [] : listFlag(v);
    for (const s of given) checkValue(f, s);
    if (given.length > 0 && given.every((s) => accepted(f, s))) continue;
    if (f.status === 'refused') {
      const bad = given.find((s) => !accepted(f, s)) ?? '';
      throw Errors.cliFlagRefused(f.name, bad, f.reason ?? 'not supported', (f.accepts ?? []).map((a) => `--${f.name}=${a}`).join(' or '));
    }
    log.warn(`--${f.name} has no effect: ${f.reason ?? 'not supported'}`);
  }
}
