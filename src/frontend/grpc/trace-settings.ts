import { Errors } from '../../errors.js';

/** Triton's trace settings, each a list of strings as the protocol carries them. */
export type TraceSettingValues = Record<string, string[]>;

export interface TraceSettings {
  /** Global settings, or one model's (its overrides on top of the global ones). */
  get(model?: string): TraceSettingValues;
  /** Apply changes; a key with an empty list falls back to the global value (or the default). */
  update(model: string | undefined, patch: TraceSettingValues): TraceSettingValues;
}

const DEFAULTS: Readonly<TraceSettingValues> = {
  trace_file: [''],
  trace_level: ['OFF'],
  trace_rate: ['1000'],
  trace_count: ['-1'],
  log_frequency: ['0'],
  trace_mode: ['triton'],
};

const LEVELS = new Set(['OFF', 'TIMESTAMPS', 'TENSORS']);

function check(key: string, values: string[]): void {
  const where = `trace setting '${key}'`;
  switch (key) {
    case 'trace_level':
      for (const l of values) if (!LEVELS.has(l)) throw Errors.invalidArg(`${where}: unknown level '${l}' (expected OFF, TIMESTAMPS or TENSORS)`);
      if (values.length > 1 && values.includes('OFF')) throw Errors.invalidArg(`${where}: OFF cannot be combined with other levels`);
      return;
    case 'trace_rate': case 'log_frequency': case 'trace_count': {
      if (values.length !== 1 || !/^-?\d+$/.test(values[0]!)) throw Errors.invalidArg(`${where} expects one integer, got [${values.join(', ')}]`);
      const n = Number(values[0]);
      if (n < (key === 'trace_count' ? -1 : 0)) throw Errors.invalidArg(`${where} must be ${key === 'trace_count' ? '>= -1' : '>= 0'}, got ${n}`);
      return;
    }
    case 'trace_file':
      if (values.length !== 1) throw Errors.invalidArg(`${where} expects one value`);
      return;
    case 'trace_mode':
      throw Errors.invalidArg(`${where} is fixed at startup and cannot be changed over the API`);
    default:
      throw Errors.invalidArg(`unknown trace setting '${key}' (known: ${Object.keys(DEFAULTS).join(', ')})`);
  }
}

/**
 * The settings store behind the trace extension's API. It validates and keeps the values that a
 * tracer would read; the front ends share one instance.
 */
export function createTraceSettings(): TraceSettings {
  const global: TraceSettingValues = { ...DEFAULTS };
  const perModel = new Map<string, TraceSettingValues>();
  const get = (model?: string) => (model ? { ...global, ...perModel.get(model) } : { ...global });
  return {
    get,
    update(model, patch) {
      for (const [key, values] of Object.entries(patch)) if (values.length > 0) check(key, values);
      for (const [key, values] of Object.entries(patch)) {
        if (model) {
          const own = perModel.get(model) ?? {};
          if (values.length === 0) delete own[key];
          else own[key] = [...values];
          perModel.set(model, own);
        } else {
          global[key] = values.length === 0 ? [...DEFAULTS[key]!] : [...values];
        }
      }
      return get(model);
    },
  };
}
