export * from './model-config.js';
export { configParam, configParamInt, isEnsemble } from './config-param.js';
export type { ConfigProblem, ParsedConfig } from './config-problem.js';
export { formatProblems } from './config-problem.js';
export { parseConfigText, configFromJsonObject } from './parse-config-text.js';
export { normalizeConfig } from './normalize-config.js';
export { validateConfig } from './validate-config.js';
export { positionOf } from './position-of.js';
export { deepFreeze } from './deep-freeze.js';
