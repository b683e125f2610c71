/**
 * The trace extension's settings: ONE store and one set of rules behind HTTP
 * (`/v2[/models/{m}]/trace/setting`), gRPC (`TraceSetting`) and the serve flags. The settings are
 * validated, kept globally and per model, and echoed; the data plane hands them to the server's
 * tracer (trace/), which does the tracing.
 *
 * Rules, after Triton's trace extension and tritonserver's handling of it: levels are OFF,
 * TIMESTAMPS and TENSORS, and OFF stands alone ("Expect only one trace level 'OFF'"); rate,
 * count and log frequency are one integer; trace_mode is "triton" or "opentelemetry"; a model's
 * settings start as a copy of the global ones, and clearing one falls back to the global value.
 * A patch is checked whole before anything changes.
 */
import { Errors } from '../errors.js';
import type { SettingValue, SettingsPatch } from './setting-value.js';

/** Values as the HTTP protocol shows them: trace_level a list, every other setting one string. */
export type TraceSettingValues = Record<string, string | string[]>;

export interface TraceSettings {
  /** Global settings, or one model's (its overrides on top of the global ones). */
  get(model?: string): TraceSettingValues;
  /** Check the whole patch, then apply it; `null` clears a model's override or restores a default. */
  update(model: string | undefined, patch: SettingsPatch): TraceSettingValues;
  /** The models that have settings of their own. */
  models(): string[];
}

export const TRACE_DEFAULTS: Readonly<TraceSettingValues> = Object.freeze({
  trace_file: '', trace_level: ['OFF'], trace_rate: '1000', trace_count: '-1', log_frequency: '0', trace_mode: 'triton',
});

const LEVELS = new Set(['OFF', 'TIMESTAMPS', 'TENSORS']);
const MODES = new Set(['triton', 'opentelemetry']);

const shown = (v: unknown) => JSON.stringify(v);

/** One scalar: a plain value, or a list of exactly one (gRPC carries every setting as a list). */
function single(key: string, v: SettingValue): string | number | boolean {
  if (!Array.isArray(v)) return v as string | number | boolean;
  if (v.length !== 1) throw Errors.traceSettingInvalid(key, `takes one value, got ${v.length}: ${shown(v)}`);
  return v[0]!;
}

/** The checked value of one setting. */
function traceValue(key: string, v: Exclude<SettingValue, null>): string | string[] {
  switch (key) {
    case 'trace_level': {
      const levels = (Array.isArray(v) ? v : [v]).map((l) => (typeof l === 'number' ? String(l) : l));
      for (const l of levels) if (typeof l !== 'string' || !LEVELS.has(l)) throw Errors.traceSettingInvalid(key, `${shown(l)} must be OFF, TIMESTAMPS or TENSORS`);
      if (levels.length === 0) throw Errors.traceSettingInvalid(key, 'needs at least one level (OFF to disable tracing)');
      if (levels.length > 1 && levels.includes('OFF')) throw Errors.traceSettingInvalid(key, `${shown(levels)}: OFF cannot be combined with other levels`);
      return levels as string[];
    }
    case 'trace_rate': case 'trace_count': case 'log_frequency': {
      const one = single(key, v);
      const s = typeof one === 'number' ? String(one) : one;
      const min = key === 'trace_count' ? -1 : 0;
      if (typeof s !== 'string' || !/^-?\d+$/.test(s) || Number(s) < min) throw Errors.traceSettingInvalid(key, `must be an integer >= ${min}, got ${shown(one)}`);
      return s;
    }
    case 'trace_file': {
      const one = single(key, v);
      if (typeof one !== 'string') throw Errors.traceSettingInvalid(key, `must be a string, got ${shown(one)}`);
      return one;
    }
    case 'trace_mode': {
      const one = single(key, v);
      if (typeof one !== 'string' || !MODES.has(one)) throw Errors.traceSettingInvalid(key, `must be "triton" or "opentelemetry", got ${shown(one)}`);
      return one;
    }
    default:
      throw Errors.traceSettingUnknown(key, Object.keys(TRACE_DEFAULTS));
  }
}

export function createTraceSettings(): TraceSettings {
  const global: TraceSettingValues = { ...TRACE_DEFAULTS };
  const perModel = new Map<string, TraceSettingValues>();
  const get = (model?: string) => (model ? { ...global, ...perModel.get(model) } : { ...global });
  return {
    get,
    update(model, patch) {
      const checked = Object.entries(patch).map(([key, v]) => {
        if (v !== null) return [key, traceValue(key, v)] as const;
        if (!(key in TRACE_DEFAULTS)) throw Errors.traceSettingUnknown(key, Object.keys(TRACE_DEFAULTS));
        return [key, null] as const;
      });
      const target = model ? (perModel.get(model) ?? {}) : global;
      for (const [key, v] of checked) {
        if (v !== null) target[key] = v;
        else if (model) delete target[key];
        else target[key] = structuredClone(TRACE_DEFAULTS[key]!);
      }
      if (model) perModel.set(model, target);
      return get(model);
    },
    models: () => [...perModel.keys()],
  };
}
