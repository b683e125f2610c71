import { BackendRegistry } from '../backend/index.js';
import { formatProblems } from '../config/index.js';
import { validateRepository } from '../repository/index.js';
import { defaultBackends } from '../server/index.js';
import { boolFlag, parseFlags } from './flags.js';

const VALIDATE_HELP = `Usage: tributary validate <repository-dir>... [--strict-model-config=<bool>]

Check every model of one or more repositories without serving them: configs parse and validate,
model files agree with their configs, pipelines compile. Prints each problem as file:line:col and
exits 1 if any is an error.
`;

export async function validate(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags('validate', argv, {
    'strict-model-config': { type: 'string' },
    'model-repository': { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(VALIDATE_HELP);
    return 0;
  }
  const dirs = [...positionals, ...((values['model-repository'] as string[] | undefined) ?? [])];
  if (dirs.length === 0) {
    process.stderr.write(`tributary validate: give a repository directory\n\n${VALIDATE_HELP}`);
    return 2;
  }
  const registry = new BackendRegistry();
  for (const b of defaultBackends()) registry.register(b);
  const report = await validateRepository(dirs, registry, { strict: boolFlag('strict-model-config', values['strict-model-config'], false) });
  const errors = report.problems.filter((p) => p.severity === 'error');
  const warnings = report.problems.filter((p) => p.severity === 'warning');
  if (report.problems.length) process.stdout.write(formatProblems(report.problems) + '\n');
  process.stdout.write(`${report.models} model(s) checked: ${errors.length} error(s), ${warnings.length} warning(s)\n`);
  return errors.length ? 1 : 0;
}
