export { createDataPlane } from './data-plane.js';
export type { DataPlane, LoadParameters } from './data-plane.js';
export type { LoadParameterValue } from './load-parameters.js';
export type { SettingsPatch } from './setting-value.js';
export { createTraceSettings, TRACE_DEFAULTS } from './trace-settings.js';
export { decodeBoundedJsonBytes, parseBoundedJsonBytes } from './bounded-json.js';
export type { CallerHeaders, Edge, InferCall, OpenCall } from './edge.js';
