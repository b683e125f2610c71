import { Errors, TributaryError } from '../errors.js';
import { confinePath, relativeNameProblem } from '../paths/index.js';
import type { BackendFactory } from './backend.js';

/**
 * Refuse a config `runtime` the backend does not have, as Triton refuses one it cannot find
 * ("unable to find backend library") or one that leaves the backend directory ("escapes backend
 * directory ... check model config runtime field"). The escape is checked first, through the same
 * confinement every other configured path goes through, so a runtime of '../../x' is refused as
 * an escape whatever the backend lists.
 */
export async function checkRuntime(model: string, runtime: string, factory: BackendFactory): Promise<void> {
  if (!runtime) return;
  const inside = `the directory of backend '${factory.name}'`;
  try {
    if (factory.directory) {
      await confinePath(factory.directory, runtime, 'runtime', { inside });
    } else {
      const problem = relativeNameProblem(runtime);
      if (problem) throw Errors.pathEscapes('runtime', JSON.stringify(runtime).slice(0, 300), problem, inside);
    }
  } catch (e) {
    // Triton's words first, so code matching on them keeps working; the refusal's detail after.
    throw e instanceof TributaryError
      ? e.withContext(`backend library name '${runtime.slice(0, 300)}' escapes backend directory, for model '${model}', check model config runtime field`)
      : e;
  }
  if (factory.runtimes?.includes(runtime)) return;
  const takes = factory.runtimes?.length ? `one of ${factory.runtimes.map((r) => `'${r}'`).join(', ')}` : 'none: leave runtime empty';
  throw Errors.modelLoadFailed(model, `unable to find backend library '${runtime}' for model '${model}': the runtimes of backend '${factory.name}' are ${takes}`);
}
