/**
 * gRPC's typed oneof parameters as the data plane's plain values (and back for log settings):
 * the choice the client set decides the value's type, as a JSON value's type does over HTTP.
 */
import type { LoadParameterValue, SettingsPatch } from '../../dataplane/index.js';
import type { LogSettings } from '../../logger.js';
import { int64Value, type LogSettingValueMsg, type ModelRepositoryParameterMsg } from '../../protocol/grpc/index.js';

type Choice = { parameter_choice?: string } & Record<string, unknown>;

/** The value of the choice set; null when none is. int64 that does not fit a double stays text. */
function chosen(p: Choice): LoadParameterValue {
  const v = p.parameter_choice === undefined ? undefined : p[p.parameter_choice];
  if (p.parameter_choice === 'int64_param') {
    const n = int64Value(v as string | number);
    return typeof n === 'bigint' ? n.toString() : n;
  }
  return (v ?? null) as LoadParameterValue;
}

export function repositoryParameters(params: Record<string, ModelRepositoryParameterMsg> | undefined): Record<string, LoadParameterValue> {
  const out: Record<string, LoadParameterValue> = Object.create(null);
  for (const [k, p] of Object.entries(params ?? {})) out[k] = chosen(p as Choice);
  return out;
}

export function logPatch(settings: Record<string, LogSettingValueMsg> | undefined): SettingsPatch {
  const out: Record<string, LoadParameterValue> = {};
  for (const [k, p] of Object.entries(settings ?? {})) out[k] = chosen(p as Choice);
  return out as SettingsPatch;
}

export function logSettingsMsg(s: Readonly<LogSettings>): Record<string, LogSettingValueMsg> {
  return {
    log_file: { string_param: s.log_file },
    log_info: { bool_param: s.log_info },
    log_warning: { bool_param: s.log_warning },
    log_error: { bool_param: s.log_error },
    log_verbose_level: { uint32_param: s.log_verbose_level },
    log_format: { string_param: s.log_format },
  };
}

/** Trace settings travel as lists of strings; an empty list clears the setting. */
export function tracePatch(settings: Record<string, { value?: string[] }> | undefined): SettingsPatch {
  const out: Record<string, readonly string[] | null> = {};
  for (const [k, sv] of Object.entries(settings ?? {})) out[k] = sv.value && sv.value.length > 0 ? sv.value : null;
  return out;
}

export function traceSettingsMsg(values: Record<string, string | string[]>): { settings: Record<string, { value: string[] }> } {
  return { settings: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: Array.isArray(v) ? v : [v] }])) };
}
