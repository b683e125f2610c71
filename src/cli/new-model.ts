import { join } from 'node:path';
import { scaffoldModel } from '../../backends/typescript/index.js';
import { Errors } from '../errors.js';
import { listFlag, parseFlags } from './flags.js';

const NEW_MODEL_HELP = `Usage: tributary new-model <name> --backend typescript [--model-repository=<dir>]

Create a working model directory (config.pbtxt, 1/model.ts, a sample request) in the repository
(default: ./pipelines).
`;

export async function newModel(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags('new-model', argv, {
    backend: { type: 'string' },
    'model-repository': { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help || positionals.length !== 1) {
    (values.help ? process.stdout : process.stderr).write(NEW_MODEL_HELP);
    return values.help ? 0 : 2;
  }
  const backend = String(values.backend ?? 'typescript');
  if (backend !== 'typescript') throw Errors.scaffoldBackend(backend);
  const name = positionals[0]!;
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw Errors.scaffoldName(name);
  const repo = listFlag(values['model-repository'])[0] ?? 'pipelines';
  const files = await scaffoldModel(join(repo, name), name);
  for (const f of files) process.stdout.write(`created ${f}\n`);
  return 0;
}
