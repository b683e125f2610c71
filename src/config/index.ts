export * from './model-config.js';
export type { SourcePosition, ConfigProblem, ParsedConfig } from './config-problem.js';
export { formatProblems, hasErrors } from './config-problem.js';
export { parseConfigText, configFromJsonObject } from './parse-config-text.js';
export { normalizeConfig, SEQUENCE_IDLE_DEFAULT_MICROSECONDS } from './normalize-config.js';
export type { NormalizeOptions } from './normalize-config.js';
export { validateConfig } from './validate-config.js';
export { positionOf } from './position-of.js';
export { deepFreeze } from './deep-freeze.js';
