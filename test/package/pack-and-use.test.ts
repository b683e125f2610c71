/**
 * The package as a user gets it: `npm pack`, `npm install <tarball>` into a fresh project, then the
 * `tributary` command (new-model, serve), `tributary/client` from plain Node ESM and
 * `tributary/bls` types through `tsc`. Dependencies come from npm's cache where it has them
 * (--prefer-offline). isolated-vm 5.x (the line Node 20 runs) is the one dependency whose install
 * compiles C++ when its prebuilt binary cannot be downloaded (minutes on two cores), so the install
 * skips install scripts, reuses this checkout's built binary there (same version, same Node; 6.x,
 * the line of Node 22 and 24, loads the prebuilt binary it ships) and then runs every other install
 * script with `npm rebuild`, tributary's own postinstall among them.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const NPM_ENV = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ONNXRUNTIME_NODE_INSTALL: 'skip' };

function sh(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: NPM_ENV, maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} in ${cwd}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** Start `tributary serve` in the project on free ports; resolves with the HTTP and gRPC ports. */
function serve(project: string, repo: string): Promise<{ http: number; grpc: number; stop: () => Promise<void> }> {
  const child = spawn(join(project, 'node_modules/.bin/tributary'), ['serve', '--model-repository', repo, '--http-port', '0', '--grpc-port', '0', '--allow-metrics=false',
    '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1'], { cwd: project, env: NPM_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => { child.kill('SIGTERM'); await exited; };
  let out = '';
  return new Promise((resolve, reject) => {
    const seen = (chunk: Buffer): void => {
      out += chunk.toString();
      const h = /HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/.exec(out);
      const g = /gRPC \(inference\.GRPCInferenceService\) listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (h && g) resolve({ http: Number(h[1]), grpc: Number(g[1]), stop });
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    void exited.then(() => reject(new Error(`tributary serve exited before listening:\n${out}`)));
  });
}

test('npm pack, npm install <tarball>: the tributary command, tributary/client in plain ESM, tributary/bls types', { timeout: 600_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'trb-pack-'));
  try {
    const t0 = performance.now();
    sh('npm', ['pack', '--silent', '--pack-destination', work], ROOT);
    const tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz'))!);
    const packed = performance.now();

    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    sh('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-package-lock', tarball], project);
    if (Number(process.versions.node.split('.')[0]) < 22) {
      cpSync(join(ROOT, 'node_modules/isolated-vm-5/out'), join(project, 'node_modules/isolated-vm-5/out'), { recursive: true });
    }
    sh('npm', ['rebuild', '--foreground-scripts=false', 'esbuild', 'onnxruntime-node', 'tributary'], project);
    const installed = performance.now();
    t.diagnostic(`npm pack ${((packed - t0) / 1000).toFixed(1)} s, install ${((installed - packed) / 1000).toFixed(1)} s`);

    // The tarball carries what runs and nothing of the repository's own tooling.
    const pkgDir = join(project, 'node_modules/tributary');
    assert.deepEqual(readdirSync(pkgDir).filter((f) => ['test', 'bench', 'node_modules', 'docs'].includes(f)), []);

    const bin = join(project, 'node_modules/.bin/tributary');
    const version = sh(bin, ['--version'], project).stdout.trim();
    assert.equal(version, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);

    // The authoring loop from outside: scaffold, type-check with the project's tsc, serve, call.
    const made = sh(bin, ['new-model', 'shout', '--backend', 'typescript', '--model-repository', 'models'], project).stdout;
    assert.match(made, /npx tsc -p models\/shout/);
    sh(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', 'models/shout'], project);

    writeFileSync(join(project, 'uses-types.ts'), [
      "import type { Request, InitializeArgs } from 'tributary/bls';",
      "import type { InferResult } from 'tributary/client';",
      'export const f = (r: Request, a: InitializeArgs, x: InferResult): string => a.modelName + r.input(\'X\').name + x.modelName;',
      '',
    ].join('\n'));
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, types: [] },
      files: ['uses-types.ts'],
    }));
    sh(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', '.'], project);

    writeFileSync(join(project, 'call.mjs'), [
      "import { createHttpClient, createGrpcClient, createTensor, tensorStrings } from 'tributary/client';",
      "const [http, grpc] = process.argv.slice(2);",
      "const input = [createTensor('TEXT', 'BYTES', [2], ['hello', 'there'])];",
      "const h = await createHttpClient({ url: `http://127.0.0.1:${http}` }).infer('shout', input);",
      "const g = createGrpcClient({ address: `127.0.0.1:${grpc}` });",
      "const r = await g.infer('shout', input);",
      "g.close();",
      "console.log(JSON.stringify([tensorStrings(h.output('UPPER')), tensorStrings(r.output('UPPER'))]));",
      '',
    ].join('\n'));
    const server = await serve(project, 'models');
    try {
      // No tsx in the consumer's command line: the client is plain JavaScript.
      const out = sh(process.execPath, ['call.mjs', String(server.http), String(server.grpc)], project).stdout;
      assert.deepEqual(JSON.parse(out), [['HELLO', 'THERE'], ['HELLO', 'THERE']]);
    } finally {
      await server.stop();
    }
    t.diagnostic(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
