import { BackendRegistry, parseBackendConfig } from '../backend/index.js';
import { formatProblems } from '../config/index.js';
import { createLogger } from '../logger.js';
import { shownPath, validateRepository } from '../repository/index.js';
import { defaultBackends } from '../server/index.js';
import { BUILTIN_PIPELINES } from './builtin-pipelines.js';
import { applyFlagPolicy } from './flag-policy.js';
import { parseFlags } from './flags.js';
import { REPOSITORY_FLAGS, repositoryFlags, repositoryFlagsHelp } from './repository-flags.js';
import { serveFlagSpec } from './serve-help.js';

const validateHelp = () => `Usage: tributary validate <repository-dir>... [options]

Check every model of one or more repositories without serving them, as \`tributary serve\` would
load them: configs parse and validate, model files agree with their configs (auto-complete
included), scripts bundle and type-check, pipelines compile. Prints each problem as file:line:col
and exits 1 if any is an error. A pipeline of your own over the built-in models:

  tributary validate --model-repository pipelines --model-repository my-models

Takes serve's repository flags, with the same meanings:

${repositoryFlagsHelp()}
`;

export async function validate(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags('validate', argv, serveFlagSpec([...REPOSITORY_FLAGS, { group: '', name: 'help', kind: 'none', origin: 'tributary', status: 'implemented', help: '' }]));
  if (values.help) {
    process.stdout.write(validateHelp());
    return 0;
  }
  applyFlagPolicy(values, createLogger('validate'), REPOSITORY_FLAGS);
  const flags = repositoryFlags(values);
  const dirs = [...positionals, ...flags.repositories];
  if (dirs.length === 0) {
    process.stderr.write(`tributary validate: give a repository directory\n\n${validateHelp()}`);
    return 2;
  }
  const registry = new BackendRegistry();
  for (const b of defaultBackends()) registry.register(b);
  const report = await validateRepository(dirs, registry, {
    strict: flags.strict,
    ...(flags.configName ? { configName: flags.configName } : {}),
    backendSettings: parseBackendConfig(flags.backendConfig, registry),
    namespacing: flags.namespacing,
    nearby: [BUILTIN_PIPELINES],
  });
  const errors = report.problems.filter((p) => p.severity === 'error');
  const warnings = report.problems.filter((p) => p.severity === 'warning');
  if (report.problems.length) process.stdout.write(formatProblems(report.problems) + '\n');
  process.stdout.write(`${report.models} model(s) checked: ${errors.length} error(s), ${warnings.length} warning(s) (repositories: ${dirs.map(shownPath).join(', ')})\n`);
  return errors.length ? 1 : 0;
}
