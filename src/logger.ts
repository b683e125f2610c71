import { AsyncLocalStorage } from 'node:async_hooks';
import { boundMessage } from './errors.js';

/**
 * One process-wide logger with Triton's logging settings (the logging extension:
 * log_info, log_warning, log_error, log_verbose_level, log_format). Writes to stderr or a file
 * sink set by the CLI; pure otherwise (the sink is injected).
 */
export interface LogSettings {
  log_file: string;
  log_info: boolean;
  log_warning: boolean;
  log_error: boolean;
  log_verbose_level: number;
  log_format: 'default' | 'ISO8601';
}

export type LogSink = (line: string) => void;

/** What a request's log lines carry: its trace id once an OpenTelemetry span is opened for it. */
export interface LogContext {
  traceId?: string;
}

// Entered only for traced requests, so untraced ones pay nothing; read only when a line is written.
const requestContext = new AsyncLocalStorage<LogContext>();

/** The log context of the request being served here, if it is traced. */
export function currentLogContext(): LogContext | undefined {
  return requestContext.getStore();
}

/** Run `fn` (and what it schedules) so that log lines written meanwhile carry `ctx.traceId`. */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return requestContext.run(ctx, fn);
}

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  /** Emitted only when log_verbose_level >= level. */
  verbose(level: number, msg: string): void;
}

const settings: LogSettings = {
  log_file: '',
  log_info: true,
  log_warning: true,
  log_error: true,
  log_verbose_level: 0,
  log_format: 'default',
};

let sink: LogSink = (line) => process.stderr.write(line + '\n');

export function getLogSettings(): Readonly<LogSettings> {
  return { ...settings };
}

export function updateLogSettings(patch: Partial<LogSettings>): Readonly<LogSettings> {
  Object.assign(settings, patch);
  return getLogSettings();
}

export function setLogSink(s: LogSink): void {
  sink = s;
}

function stamp(level: string): string {
  const d = new Date();
  if (settings.log_format === 'ISO8601') return `${d.toISOString()} ${level}`;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${level}${p(d.getMonth() + 1)}${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/**
 * `write`, letting one line through per `intervalMs` and counting the rest: for a failure that
 * repeats per request (a script whose execute() throws), so a broken model under load writes a
 * line per interval rather than per request. The next line written says how many were left out.
 */
export function rateLimited(write: (msg: string) => void, intervalMs: number, now: () => number = Date.now): (msg: string) => void {
  let last = -Infinity;
  let skipped = 0;
  return (msg) => {
    const t = now();
    if (t - last < intervalMs) {
      skipped++;
      return;
    }
    write(skipped ? `${msg} (${skipped} more like it left out since the last line; one line per ${intervalMs / 1000} s)` : msg);
    last = t;
    skipped = 0;
  };
}

/** A logger whose lines carry `[scope]`. */
export function createLogger(scope: string): Logger {
  const line = (level: string, msg: string) => {
    const traceId = requestContext.getStore()?.traceId;
    // A message may carry what a client or a script sent (an error of any size): one line is bounded.
    sink(`${stamp(level)} ${process.pid} ${scope}] ${traceId === undefined ? '' : `trace_id=${traceId} `}${boundMessage(msg)}`);
  };
  return {
    info: (m) => { if (settings.log_info) line('I', m); },
    warn: (m) => { if (settings.log_warning) line('W', m); },
    error: (m) => { if (settings.log_error) line('E', m); },
    verbose: (lvl, m) => { if (settings.log_verbose_level >= lvl) line('I', m); },
  };
}
