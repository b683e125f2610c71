import { host } from './host-channel.js';
import { LOG_ERROR, LOG_INFO, LOG_VERBOSE, LOG_WARN } from './logger.js';
import { SandboxTextDecoder, SandboxTextEncoder } from './utf8.js';

/**
 * The few web globals scripts and their pure-JS packages expect, which a bare isolate lacks.
 * Imported first by the bundle entry so it runs before any package code.
 */
const g = globalThis as Record<string, unknown>;
if (typeof g.TextEncoder !== 'function') g.TextEncoder = SandboxTextEncoder;
if (typeof g.TextDecoder !== 'function') g.TextDecoder = SandboxTextDecoder;

function fmt(args: unknown[]): string {
  return args.map((a) => {
    if (typeof a === 'string') return a;
    if (a instanceof Error) return a.stack ?? a.message;
    try { return JSON.stringify(a, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)); } catch { return String(a); }
  }).join(' ');
}
const line = (level: number) => (...args: unknown[]) => host().log(level, fmt(args));
g.console = {
  log: line(LOG_INFO), info: line(LOG_INFO), warn: line(LOG_WARN), error: line(LOG_ERROR),
  debug: line(LOG_VERBOSE), trace: line(LOG_VERBOSE),
};
