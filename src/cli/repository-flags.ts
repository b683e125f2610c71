import { boolFlag, listFlag } from './flags.js';
import { REPOSITORY_FLAG_NAMES, SERVE_FLAGS, type ServeFlag } from './serve-flags.js';

/** The rows of the serve table that `validate` takes too (REPOSITORY_FLAG_NAMES). */
export const REPOSITORY_FLAGS: readonly ServeFlag[] = SERVE_FLAGS.filter((f) => (REPOSITORY_FLAG_NAMES as readonly string[]).includes(f.name));

export interface RepositoryFlags {
  repositories: string[];
  strict: boolean;
  configName?: string;
  backendConfig: string[];
  /** --model-namespacing: one namespace per repository, so a name may be in several. */
  namespacing: boolean;
}

/** Read the repository flags the same way for `serve` and `validate`. */
export function repositoryFlags(f: Readonly<Record<string, unknown>>): RepositoryFlags {
  return {
    repositories: [...listFlag(f['model-repository']), ...listFlag(f['model-store'])],
    // --disable-auto-complete-config wins over a contrary --strict-model-config, as in tritonserver.
    strict: f['disable-auto-complete-config'] === true || boolFlag('strict-model-config', f['strict-model-config'], false),
    ...(f['model-config-name'] === undefined ? {} : { configName: String(f['model-config-name']) }),
    backendConfig: listFlag(f['backend-config']),
    namespacing: boolFlag('model-namespacing', f['model-namespacing'], false),
  };
}
