export { checkModelName, modelNameProblem, MAX_NAME_BYTES } from './check-model-name.js';
export {
  confinePath, confinePathSync, confineAbsolute, confineAbsoluteSync, isInside, relativeNameProblem, MAX_RELATIVE_PATH_BYTES,
  type ConfineOptions,
} from './confine-path.js';
