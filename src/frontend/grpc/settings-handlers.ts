import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { DataPlane } from '../../dataplane/index.js';
import type { LogSettingValueMsg } from '../../protocol/grpc/index.js';
import { unary } from './unary.js';
import { logPatch, logSettingsMsg, tracePatch, traceSettingsMsg } from './wire-values.js';

/** TraceSetting and LogSettings (the trace and logging extensions), through the data plane. */
export function settingsHandlers(plane: DataPlane): UntypedServiceImplementation {
  return {
    TraceSetting: unary((r: { settings?: Record<string, { value?: string[] }>; model_name: string }) =>
      traceSettingsMsg(plane.traceSettings({ model: r.model_name }, tracePatch(r.settings)))),
    LogSettings: unary((r: { settings?: Record<string, LogSettingValueMsg> }) =>
      ({ settings: logSettingsMsg(plane.logSettings(logPatch(r.settings))) })),
  };
}
