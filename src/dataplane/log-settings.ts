/**
 * The logging extension's rules, once for HTTP (`/v2/logging`) and gRPC (`LogSettings`): the
 * settings live in the process-wide logger (src/logger.ts); this checks a patch whole before any
 * setting changes. `log_file` is fixed at start (--log-file): sending its current value is
 * accepted, any other value is refused as unsupported.
 */
import { Errors } from '../errors.js';
import { getLogSettings, updateLogSettings, type LogSettings } from '../logger.js';
import type { SettingsPatch } from './setting-value.js';

const KNOWN = ['log_file', 'log_info', 'log_warning', 'log_error', 'log_verbose_level', 'log_format'] as const;
/** gRPC carries the level as uint32_param. */
const MAX_VERBOSE_LEVEL = 2 ** 32 - 1;

function logPatch(patch: SettingsPatch): Partial<LogSettings> {
  const out: Partial<LogSettings> = {};
  for (const [key, v] of Object.entries(patch)) {
    switch (key) {
      case 'log_file':
        if (v !== getLogSettings().log_file) throw Errors.logFileFixed();
        break;
      case 'log_info': case 'log_warning': case 'log_error':
        if (typeof v !== 'boolean') throw Errors.logSettingInvalid(key, 'a boolean', v);
        out[key] = v;
        break;
      case 'log_verbose_level':
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > MAX_VERBOSE_LEVEL) throw Errors.logSettingInvalid(key, 'an integer >= 0', v);
        out.log_verbose_level = v;
        break;
      case 'log_format':
        if (v !== 'default' && v !== 'ISO8601') throw Errors.logSettingInvalid(key, "'default' or 'ISO8601'", v);
        out.log_format = v;
        break;
      default:
        throw Errors.logSettingUnknown(key, [...KNOWN]);
    }
  }
  return out;
}

/** The current settings, after applying `patch` when it has any setting. */
export function logSettings(patch: SettingsPatch = {}): Readonly<LogSettings> {
  const checked = logPatch(patch);
  return Object.keys(checked).length > 0 ? updateLogSettings(checked) : getLogSettings();
}
