import { boolFlag, listFlag } from './flags.js';
import { REPOSITORY_FLAG_NAMES, SERVE_FLAGS, type ServeFlag } from './serve-flags.js';
import { describeFlag } from './serve-help.js';

/** The rows of the serve table that `validate` and `run-model` take too (REPOSITORY_FLAG_NAMES). */
export const REPOSITORY_FLAGS: readonly ServeFlag[] = SERVE_FLAGS.filter((f) => (REPOSITORY_FLAG_NAMES as readonly string[]).includes(f.name));

export interface RepositoryFlags {
  repositories: string[];
  strict: boolean;
  configName?: string;
  backendConfig: string[];
  /** --model-namespacing: one namespace per repository, so a name may be in several. */
  namespacing: boolean;
}

/** The help lines of REPOSITORY_FLAGS, each description word-wrapped to 100 columns under a 6-space indent. */
export function repositoryFlagsHelp(): string {
  return REPOSITORY_FLAGS.map((f) => `  --${f.name}${f.kind === 'none' ? '' : '=<value>'}\n${indented(describeFlag(f))}`).join('\n');
}

function indented(text: string): string {
  const lines = [''];
  for (const word of text.split(' ')) {
    if (lines[lines.length - 1]!.length + word.length + 1 > 94 && lines[lines.length - 1]) lines.push('');
    lines[lines.length - 1] += (lines[lines.length - 1] ? ' ' : '') + word;
  }
  return lines.map((l) => `      ${l}`).join('\n');
}

/** Read the repository flags the same way for `serve`, `validate` and `run-model`. */
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
