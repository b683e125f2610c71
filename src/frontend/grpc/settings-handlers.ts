import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { Errors } from '../../errors.js';
import { getLogSettings, updateLogSettings, type LogSettings } from '../../logger.js';
import type { LogSettingValueMsg } from '../../protocol/grpc/index.js';
import type { TraceSettings, TraceSettingValues } from './trace-settings.js';
import { unary } from './unary.js';

function logSettingsMsg(s: Readonly<LogSettings>): Record<string, LogSettingValueMsg> {
  return {
    log_file: { string_param: s.log_file },
    log_info: { bool_param: s.log_info },
    log_warning: { bool_param: s.log_warning },
    log_error: { bool_param: s.log_error },
    log_verbose_level: { uint32_param: s.log_verbose_level },
    log_format: { string_param: s.log_format },
  };
}

function logPatch(settings: Record<string, LogSettingValueMsg>): Partial<LogSettings> {
  const patch: Partial<LogSettings> = {};
  for (const [key, p] of Object.entries(settings)) {
    const where = `log setting '${key}'`;
    switch (key) {
      case 'log_info': case 'log_warning': case 'log_error':
        if (p.parameter_choice !== 'bool_param') throw Errors.invalidArg(`${where} expects bool_param`);
        patch[key] = p.bool_param!;
        break;
      case 'log_verbose_level':
        if (p.parameter_choice !== 'uint32_param') throw Errors.invalidArg(`${where} expects uint32_param`);
        patch.log_verbose_level = p.uint32_param!;
        break;
      case 'log_format':
        if (p.parameter_choice !== 'string_param' || (p.string_param !== 'default' && p.string_param !== 'ISO8601')) {
          throw Errors.invalidArg(`${where} expects string_param "default" or "ISO8601"`);
        }
        patch.log_format = p.string_param;
        break;
      case 'log_file':
        if (p.string_param !== getLogSettings().log_file) throw Errors.unsupported(`${where} cannot be changed over the API; start the server with --log-file`);
        break;
      default:
        throw Errors.invalidArg(`unknown log setting '${key}'`);
    }
  }
  return patch;
}

/** TraceSetting and LogSettings (the trace and logging extensions). */
export function settingsHandlers(trace: TraceSettings): UntypedServiceImplementation {
  return {
    TraceSetting: unary((r: { settings: Record<string, { value: string[] }>; model_name: string }) => {
      const patch: TraceSettingValues = {};
      for (const [k, sv] of Object.entries(r.settings ?? {})) patch[k] = sv.value ?? [];
      const model = r.model_name || undefined;
      const now = Object.keys(patch).length > 0 ? trace.update(model, patch) : trace.get(model);
      return { settings: Object.fromEntries(Object.entries(now).map(([k, value]) => [k, { value }])) };
    }),
    LogSettings: unary((r: { settings: Record<string, LogSettingValueMsg> }) => {
      const patch = logPatch(r.settings ?? {});
      return { settings: logSettingsMsg(Object.keys(patch).length > 0 ? updateLogSettings(patch) : getLogSettings()) };
    }),
  };
}
