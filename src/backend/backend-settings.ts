/**
 * tritonserver's --backend-config: `<backend>,<setting>=<value>` sets a backend's default for the
 * models that do not set that parameter themselves (a model's own `parameters` win);
 * `<setting>=<value>` with no backend is global, as in tritonserver, and here reaches every
 * backend that has the setting. Checked in full at start, so a typo stops the server with the flag
 * named instead of surfacing at the first load.
 */
import type { ModelConfig } from '../config/index.js';
import { Errors } from '../errors.js';
import type { BackendRegistry } from './registry.js';

/** Settings per backend name. */
export type BackendSettings = Readonly<Record<string, Readonly<Record<string, string>>>>;

const refuse = (entry: string, why: string) => Errors.cliFlagRefused('backend-config', entry, why, '');

export function parseBackendConfig(entries: readonly string[], registry: BackendRegistry): BackendSettings {
  const out: Record<string, Record<string, string>> = {};
  const configurable = registry.names().filter((n) => Object.keys(registry.get(n)!.settings ?? {}).length > 0);
  const known = (b: string) => Object.keys(registry.get(b)?.settings ?? {});
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const comma = entry.indexOf(',');
    const hasBackend = comma >= 0 && (eq < 0 || comma < eq);
    const backend = hasBackend ? entry.slice(0, comma).trim() : '';
    const kv = hasBackend ? entry.slice(comma + 1) : entry;
    const i = kv.indexOf('=');
    if (i <= 0) throw refuse(entry, 'expected <backend>,<setting>=<value> or <setting>=<value>');
    const setting = kv.slice(0, i).trim();
    const value = kv.slice(i + 1).trim();
    if (hasBackend && !registry.get(backend)) throw refuse(entry, `there is no backend '${backend}' (backends: ${registry.names().join(', ')})`);
    const targets = hasBackend ? [backend] : configurable.filter((b) => known(b).includes(setting));
    if (hasBackend && !known(backend).includes(setting)) {
      throw refuse(entry, `backend '${backend}' has no setting '${setting}' (its settings: ${known(backend).join(', ') || 'none'})`);
    }
    if (targets.length === 0) {
      throw refuse(entry, `no backend has a setting '${setting}' (${configurable.map((b) => `${b}: ${known(b).join(', ')}`).join('; ')})`);
    }
    for (const b of targets) {
      const why = registry.get(b)!.settings![setting]!(value);
      if (why) throw refuse(entry, `${b} setting ${setting} ${why}`);
      (out[b] ??= {})[setting] = value;
    }
  }
  return out;
}

/** The config a backend reads its parameters from: the model's own, then the --backend-config defaults. */
export function withBackendDefaults(config: ModelConfig, defaults: Readonly<Record<string, string>> | undefined): ModelConfig {
  if (!defaults) return config;
  const parameters: ModelConfig['parameters'] = {};
  for (const [k, v] of Object.entries(defaults)) parameters[k] = { string_value: v };
  return { ...config, parameters: { ...parameters, ...config.parameters } };
}

/** Checks for the usual kinds of setting: each returns why a value is refused, or undefined. */
export const settingIs = {
  int: (min: number, max = Number.MAX_SAFE_INTEGER) => (v: string) =>
    (/^-?[0-9]+$/.test(v) && Number(v) >= min && Number(v) <= max ? undefined : `must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}, got '${v}'`),
  oneOf: (...choices: string[]) => (v: string) =>
    (choices.includes(v.toLowerCase()) ? undefined : `must be one of ${choices.join(', ')}, got '${v}'`),
};
