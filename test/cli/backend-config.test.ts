/**
 * --backend-config through `tributary serve` (bin/tributary.js in a child process, loopback port
 * 0): a TypeScript model's script time limit comes from `typescript,timeout_ms=<ms>` when the model
 * sets none, a model's own parameter wins, the global form reaches the backends that have the
 * setting, and bad entries stop the start with exit 2 naming the flag.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { LOOPBACK, runTributary, startServe } from '../helpers/tributary-process.js';


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

/** Runs the command to its end; stdout and stderr together. */
const run = (args: readonly string[]) => runTributary(args).then((r) => ({ code: r.code, out: r.stdout + r.stderr }));
const start = (args: readonly string[]) => startServe([...LOOPBACK, ...args], 60_000);

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
