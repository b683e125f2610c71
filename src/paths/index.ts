export { checkModelName } from './check-model-name.js';
export {
  confinePath, confinePathSync, confineAbsolute, confineAbsoluteSync, isInside, relativeNameProblem,
} from './confine-path.js';
