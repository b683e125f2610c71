import { createTraceSettings, type SettingsPatch } from '../dataplane/index.js';
import { Errors } from '../errors.js';
import { DEFAULT_OTLP_URL, type OpenTelemetrySettings } from '../trace/index.js';
import { listFlag } from './flags.js';

type FlagValues = Record<string, unknown>;

/** tritonserver's setting names in --trace-config, to the trace extension's. */
const GLOBAL: Readonly<Record<string, string>> = { rate: 'trace_rate', level: 'trace_level', count: 'trace_count', mode: 'trace_mode' };
const TRITON: Readonly<Record<string, string>> = { file: 'trace_file', 'log-frequency': 'log_frequency', log_frequency: 'log_frequency' };
const SYNTAX = '[triton,|opentelemetry,]<setting>=<value> (settings: rate, level, count, mode; triton,file and triton,log-frequency; opentelemetry,url, resource, bsp_max_queue_size, bsp_schedule_delay, bsp_max_export_batch_size)';
const OTEL_COUNTS: Readonly<Record<string, 'bspMaxQueueSize' | 'bspScheduleDelayMs' | 'bspMaxExportBatchSize'>> = {
  bsp_max_queue_size: 'bspMaxQueueSize', bsp_schedule_delay: 'bspScheduleDelayMs', bsp_max_export_batch_size: 'bspMaxExportBatchSize',
};

/**
 * The start-up trace settings: --trace-config `[<mode>,]<setting>=<value>` entries (level may
 * repeat and the levels add up, as in tritonserver), over the deprecated --trace-file,
 * --trace-level, --trace-rate, --trace-count and --trace-log-frequency (--trace-config wins when
 * both set one). Checked here, by the trace extension's own rules, before any model loads.
 */
export function traceSettingsFromFlags(f: FlagValues): SettingsPatch {
  const patch: Record<string, string | string[]> = {};
  const old: [string, string][] = [['trace-file', 'trace_file'], ['trace-rate', 'trace_rate'], ['trace-count', 'trace_count'], ['trace-log-frequency', 'log_frequency']];
  for (const [flag, key] of old) if (f[flag] !== undefined) patch[key] = String(f[flag]);
  if (f['trace-level'] !== undefined) patch.trace_level = listFlag(f['trace-level']);
  const levels: string[] = [];
  for (const entry of listFlag(f['trace-config'])) {
    const comma = entry.indexOf(',');
    const eq = entry.indexOf('=');
    const mode = comma >= 0 && comma < eq ? entry.slice(0, comma) : undefined;
    const name = entry.slice(mode === undefined ? 0 : comma + 1, eq);
    const value = entry.slice(eq + 1);
    if (eq <= 0 || name === '') throw Errors.cliFlagExpects('trace-config', SYNTAX, entry);
    if (mode === 'opentelemetry') {
      if (name !== 'url' && name !== 'resource' && OTEL_COUNTS[name] === undefined) throw Errors.cliFlagExpects('trace-config', SYNTAX, entry);
      continue; // read by openTelemetryFromFlags
    }
    const key = mode === 'triton' ? TRITON[name] : mode === undefined ? GLOBAL[name] : undefined;
    if (key === undefined) throw Errors.cliFlagExpects('trace-config', SYNTAX, entry);
    if (key === 'trace_level') levels.push(value);
    else patch[key] = value;
  }
  if (levels.length) patch.trace_level = levels;
  createTraceSettings().update(undefined, patch);
  return patch;
}

/**
 * The exporter's settings from --trace-config `opentelemetry,<setting>=<value>` (url, resource
 * `key=value` repeated, bsp_* counts), when the mode is opentelemetry; undefined otherwise. The
 * mode may also be switched later through the settings API, so a url alone sets the exporter up.
 */
export function openTelemetryFromFlags(f: FlagValues): OpenTelemetrySettings | undefined {
  const out: OpenTelemetrySettings = { url: DEFAULT_OTLP_URL, resource: {} };
  const resource: Record<string, string> = {};
  let wanted = false;
  for (const entry of listFlag(f['trace-config'])) {
    const eq = entry.indexOf('=');
    if (entry === 'mode=opentelemetry') wanted = true;
    if (!entry.startsWith('opentelemetry,')) continue;
    wanted = true;
    const name = entry.slice('opentelemetry,'.length, eq);
    const value = entry.slice(eq + 1);
    if (name === 'url') out.url = value;
    else if (name === 'resource') {
      const kv = value.indexOf('=');
      if (kv <= 0) throw Errors.cliFlagExpects('trace-config', 'opentelemetry,resource=<key>=<value>', entry);
      resource[value.slice(0, kv)] = value.slice(kv + 1);
    } else {
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n <= 0) throw Errors.cliFlagExpects('trace-config', `opentelemetry,${name}=<a positive integer>`, entry);
      out[OTEL_COUNTS[name]!] = n;
    }
  }
  return wanted ? { ...out, resource } : undefined;
}
