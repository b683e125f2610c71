/**
 * --backend-config through `tributary serve` (bin/tributary.js in a child process, loopback port
 * 0): a TypeScript model's script time limit comes from `typescript,timeout_ms=<ms>` when the model
 * sets none, a model's own parameter wins, the global form reaches the backends that have the
 * setting, and bad entries stop the start with exit 2 naming the flag.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));
const LOOPBACK = ['--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1'];

const SPIN = `import { InferenceResponse, Tensor } from 'tributary/bls';
import type { Request } from 'tributary/bls';

// Busy for MS milliseconds of script time, then answers MS.
export default class Spin {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const ms = (r.input('MS').data as Int32Array)[0]!;
      const end = Date.now() + ms;
      while (Date.now() < end) { /* spin */ }
      return new InferenceResponse({ outputs: [new Tensor('OUT', 'INT32', [1], [ms])] });
    });
  }
}
`;
const CONFIG = (name: string, extra = '') => `name: "${name}"
backend: "typescript"
max_batch_size: 0
input [ { name: "MS" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
${extra}`;

function run(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Starts serve, resolves with its HTTP port once the start banner is out, and a stop function. */
function start(args: readonly string[]): Promise<{ http: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...LOOPBACK, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no start banner in 60 s:\n${out}`)); }, 60_000);
    const check = () => {
      const port = /HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      if (!port || !/\/v2\/health\/ready is/.test(out)) return;
      clearTimeout(timer);
      resolve({ http: Number(port), stop: async () => { child.kill('SIGTERM'); await exited; } });
    };
    child.stdout.on('data', (d) => { out += d; check(); });
    child.stderr.on('data', (d) => { out += d; check(); });
    void exited.then(() => { clearTimeout(timer); reject(new Error(`serve exited:\n${out}`)); });
  });
}

async function infer(port: number, model: string, ms: number): Promise<{ status: number; body: { error?: string; outputs?: { data: number[] }[] } }> {
  const res = await fetch(`http://127.0.0.1:${port}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'MS', datatype: 'INT32', shape: [1], data: [ms] }] }),
  });
  return { status: res.status, body: await res.json() as { error?: string; outputs?: { data: number[] }[] } };
}

let repo: TempRepo;

before(() => {
  repo = tempRepo({
    'spin/config.pbtxt': CONFIG('spin'),
    'spin/1/model.ts': SPIN,
    'spin_own/config.pbtxt': CONFIG('spin_own', 'parameters { key: "timeout_ms" value: { string_value: "5000" } }'),
    'spin_own/1/model.ts': SPIN,
  });
});

after(() => repo.remove());

test('a script\'s timeout comes from --backend-config where the model sets none; the model\'s own parameter wins', async () => {
  // The global form (no backend) reaches the typescript backend, the only one with type_check.
  const s = await start(['--model-repository', repo.dir, '--backend-config=typescript,timeout_ms=200', '--backend-config=type_check=off']);
  try {
    const quick = await infer(s.http, 'spin', 0);
    assert.equal(quick.status, 200, JSON.stringify(quick.body));
    const slow = await infer(s.http, 'spin', 1000);
    assert.notEqual(slow.status, 200, 'past the 200 ms from --backend-config the script is stopped');
    assert.match(slow.body.error ?? '', /200 ?ms|timeout_ms/, slow.body.error);
    const own = await infer(s.http, 'spin_own', 1000);
    assert.equal(own.status, 200, `the model's timeout_ms 5000 wins: ${JSON.stringify(own.body)}`);
    assert.deepEqual(own.body.outputs?.[0]?.data, [1000]);
  } finally {
    await s.stop();
  }
});

test('bad --backend-config entries: exit 2, naming the flag, the entry and why, before any model loads', async () => {
  const cases: Array<[string, RegExp]> = [
    ['python,timeout_ms=5', /--backend-config=python,timeout_ms=5 is refused: there is no backend 'python' \(backends: .*typescript/],
    ['typescript,timeout=5', /backend 'typescript' has no setting 'timeout' \(its settings: memory_limit_mb, timeout_ms,/],
    ['onnxruntime,intra_op_thread_count=two', /onnxruntime setting intra_op_thread_count must be an integer >= 0, got 'two'/],
    ['no_such_setting=1', /no backend has a setting 'no_such_setting'/],
    ['typescript,timeout_ms', /expected <backend>,<setting>=<value> or <setting>=<value>/],
  ];
  const runs = await Promise.all(cases.map(([entry]) => run(['serve', '--model-repository', repo.dir, ...LOOPBACK, `--backend-config=${entry}`])));
  runs.forEach((r, i) => {
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, cases[i]![1]);
    assert.doesNotMatch(r.out, /loaded|listening/);
  });
});
