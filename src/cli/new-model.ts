import { join } from 'node:path';
import { scaffoldModel } from '../../backends/typescript/index.js';
import { Errors } from '../errors.js';
import { listFlag, parseFlags } from './flags.js';

const NEW_MODEL_HELP = `Usage: tributary new-model <name> --backend typescript --model-repository <dir>

Create a working model directory in the repository: config.pbtxt, 1/model.ts, tsconfig.json (so
editors and \`tsc -p\` resolve tributary/bls) and sample-request.json, then print the commands to
type-check it, run it once and serve it.
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
  // Both are required: a default backend would hide the choice, a default repository would write
  // into whatever directory the command happens to run in.
  if (values.backend === undefined) throw Errors.scaffoldFlagMissing('--backend typescript');
  const backend = String(values.backend);
  if (backend !== 'typescript') throw Errors.scaffoldBackend(backend);
  const name = positionals[0]!;
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw Errors.scaffoldName(name);
  const repo = listFlag(values['model-repository'])[0];
  if (repo === undefined) throw Errors.scaffoldFlagMissing('--model-repository <dir>');
  const dir = join(repo, name);
  const files = await scaffoldModel(dir, name);
  for (const f of files) process.stdout.write(`created ${f}\n`);
  const sample = join(dir, 'sample-request.json');
  process.stdout.write(`
Next:
  type-check:  npx tsc -p ${dir}
  run once:    npx tributary run-model ${dir} --input ${sample}
  serve:       npx tributary serve --model-repository ${repo}
  call it:     curl -d @${sample} localhost:8000/v2/models/${name}/infer
`);
  return 0;
}
