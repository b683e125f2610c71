import { existsSync } from 'node:fs';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { Errors } from '../../src/errors.js';
import { BLS_TYPES, PROJECT_ROOT } from './script-scope.js';

const config = (name: string) => `name: "${name}"
backend: "typescript"
max_batch_size: 0
input [
  { name: "TEXT" data_type: TYPE_STRING dims: [ -1 ] }
]
output [
  { name: "UPPER" data_type: TYPE_STRING dims: [ -1 ] },
  { name: "LENGTH" data_type: TYPE_INT32 dims: [ -1 ] }
]
instance_group [ { count: 1 kind: KIND_CPU } ]
parameters [
  { key: "memory_limit_mb" value: { string_value: "128" } },
  { key: "timeout_ms" value: { string_value: "5000" } }
]
`;

const script = `import { InferenceResponse, Tensor, logger, type InitializeArgs, type Request } from 'tributary/bls';

/**
 * A business-logic script. It runs in a sandbox (no fs, network or process); other models are
 * reachable with \`new InferenceRequest({ model, inputs }).exec()\`.
 */
export default class Model {
  initialize(args: InitializeArgs): void {
    logger.info(\`\${args.modelName} ready with files: \${Object.keys(args.files).join(', ')}\`);
  }

  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((request) => {
      const text = request.input('TEXT').strings();
      return new InferenceResponse({
        outputs: [
          new Tensor('UPPER', 'BYTES', [text.length], text.map((s) => s.toUpperCase())),
          new Tensor('LENGTH', 'INT32', [text.length], text.map((s) => s.length)),
        ],
      });
    });
  }
}
`;

/**
 * The bls declarations an editor should read: an installed package (under a node_modules) has
 * them compiled in dist/ (npm pack builds it); a checkout reads the source types/bls.d.ts, which a
 * stale dist/ from an earlier pack would not follow.
 */
function blsTypes(): string {
  const built = join(PROJECT_ROOT, 'dist', 'types', 'types', 'bls.d.ts');
  return PROJECT_ROOT.split(sep).includes('node_modules') && existsSync(built) ? built : BLS_TYPES;
}

/**
 * The options the server's own check uses (type-check-script.ts: ES2023, bundler resolution, no
 * Node or DOM types), with `paths` naming the bls types by a relative path, so `tributary/bls`
 * resolves whether or not a node_modules above the repository holds tributary.
 */
const tsconfig = (modelDir: string) => JSON.stringify({
  compilerOptions: {
    strict: true,
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2023'],
    types: [],
    noEmit: true,
    skipLibCheck: true,
    paths: { 'tributary/bls': [relative(resolve(modelDir), blsTypes()).split(sep).join('/')] },
  },
  include: ['*/**/*.ts', relative(resolve(modelDir), join(PROJECT_ROOT, 'types', 'sandbox-globals.d.ts')).split(sep).join('/')],
}, null, 2) + '\n';

const sample = {
  inputs: [{ name: 'TEXT', datatype: 'BYTES', shape: [2], data: ['hello', 'tributary'] }],
};

/**
 * Write a working script model directory: config.pbtxt, 1/model.ts, a tsconfig.json for editors and
 * `tsc -p`, and a sample v2 request body (`curl -d @sample-request.json
 * localhost:8000/v2/models/<name>/infer`). Returns the files written; refuses to overwrite an
 * existing model.
 */
export async function scaffoldModel(dir: string, name: string): Promise<string[]> {
  const cfg = join(dir, 'config.pbtxt');
  if (await access(cfg).then(() => true, () => false)) {
    throw Errors.scaffoldExists(dir);
  }
  await mkdir(join(dir, '1'), { recursive: true });
  const files: Array<[string, string]> = [
    [cfg, config(name)],
    [join(dir, '1', 'model.ts'), script],
    [join(dir, 'tsconfig.json'), tsconfig(dir)],
    [join(dir, 'sample-request.json'), JSON.stringify(sample, null, 2) + '\n'],
  ];
  for (const [path, text] of files) await writeFile(path, text);
  return files.map(([p]) => p);
}
