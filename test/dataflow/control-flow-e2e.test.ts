/**
 * Control flow end to end: YAML pipelines with switch, return, map and loop, loaded by the real
 * server over identity and TypeScript models, run through its in-process API; statistics and
 * metrics per branch, map and loop read back from the server.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import { startMetricsServer } from '../../src/metrics/index.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor, tensorStrings, type Tensor } from '../../src/tensor/index.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const identity = (name: string, type: string, o: { delayMs?: number; batching?: boolean } = {}) => `
name: "${name}"
backend: "identity"
max_batch_size: 8
input [ { name: "INPUT0" data_type: ${type} dims: [ 1 ] } ]
output [ { name: "OUTPUT0" data_type: ${type} dims: [ 1 ] } ]
${o.delayMs ? `parameters { key: "execute_delay_ms" value: { string_value: "${o.delayMs}" } }` : ''}
${o.batching ? 'dynamic_batching { max_queue_delay_microseconds: 20000 }' : ''}
instance_group [ { kind: KIND_CPU count: 1 } ]
`;

const INC = `
import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Inc {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const x = r.input('X');
      return new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', x.shape, (x.data as Float32Array).map((v) => v + 0.25))] });
    });
  }
}
`;

const ROUTED = `
name: routed
max_batch_size: 8
input:
  - { name: LANG, data_type: TYPE_STRING, dims: [1] }
  - { name: X, data_type: TYPE_FP32, dims: [1] }
output:
  - { name: LABEL, data_type: TYPE_STRING, dims: [1] }
  - { name: SCORE, data_type: TYPE_FP32, dims: [1], optional: true }
steps:
  - model: text_id
    inputs: { INPUT0: LANG }
    outputs: { OUTPUT0: lang }
  - switch:
      cases:
        - when: "lang == 'en'"
          steps:
            - model: text_id
              inputs: { INPUT0: lang }
              outputs: { OUTPUT0: LABEL }
            - model: inc
              inputs: { X: X }
              outputs: { Y: SCORE }
        - when: "lang == 'slow'"
          steps:
            - model: slow
              inputs: { INPUT0: X }
              outputs: { OUTPUT0: SCORE }
            - model: text_id
              inputs: { INPUT0: lang }
              outputs: { OUTPUT0: LABEL }
      default:
        - return:
            outputs:
              LABEL: { value: "unsupported language" }
`;

const EARLY = `
name: early
max_batch_size: 8
input:
  - { name: LANG, data_type: TYPE_STRING, dims: [1] }
  - { name: X, data_type: TYPE_FP32, dims: [1] }
output:
  - { name: LABEL, data_type: TYPE_STRING, dims: [1] }
  - { name: SCORE, data_type: TYPE_FP32, dims: [1] }
steps:
  - model: slow
    inputs: { INPUT0: X }
    outputs: { OUTPUT0: SCORE }
  - model: text_id
    inputs: { INPUT0: LANG }
    outputs: { OUTPUT0: lang }
  - return:
      when: "lang == 'stop'"
      outputs:
        LABEL: { value: "stopped" }
        SCORE: { value: "0" }
  - model: text_id
    inputs: { INPUT0: lang }
    outputs: { OUTPUT0: LABEL }
`;

const MAPPED = `
name: mapped
max_batch_size: 0
input:
  - { name: XS, data_type: TYPE_FP32, dims: [-1, 1] }
output:
  - { name: YS, data_type: TYPE_FP32, dims: [-1, 1] }
steps:
  - map:
      over: XS
      as: x
      concurrency: 8
      max_items: 16
      steps:
        - model: batched
          inputs: { INPUT0: x }
          outputs: { OUTPUT0: y }
      outputs: { y: YS }
`;

const LOOPED = `
name: looped
max_batch_size: 0
input:
  - { name: S0, data_type: TYPE_FP32, dims: [1] }
output:
  - { name: S, data_type: TYPE_FP32, dims: [1] }
steps:
  - loop:
      max: 8
      carry: { s: S0 }
      while: "max(s) < 1"
      steps:
        - model: inc_nb
          inputs: { X: s }
          outputs: { Y: s2 }
      next: { s: s2 }
      outputs: { s: S }
`;

let repo: TempRepo;
let server: LocalServer;
before(async () => {
  repo = tempRepo({
    'text_id/config.pbtxt': identity('text_id', 'TYPE_STRING'),
    'text_id/1/.keep': '',
    'slow/config.pbtxt': identity('slow', 'TYPE_FP32', { delayMs: 1500 }),
    'slow/1/.keep': '',
    'batched/config.pbtxt': identity('batched', 'TYPE_FP32', { batching: true, delayMs: 5 }),
    'batched/1/.keep': '',
    'inc/config.pbtxt': 'name: "inc"\nbackend: "typescript"\nmax_batch_size: 8\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n',
    'inc/1/model.ts': INC,
    'inc_nb/config.pbtxt': 'name: "inc_nb"\nbackend: "typescript"\nmax_batch_size: 0\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n',
    'inc_nb/1/model.ts': INC,
    'routed/config.yaml': ROUTED,
    'mapped/config.yaml': MAPPED,
    'early/config.yaml': EARLY,
    'looped/config.yaml': LOOPED,
  });
  server = await createServer({ modelRepository: repo.dir, modelControlMode: 'none' });
});
after(async () => {
  await server?.close();
  repo?.remove();
});

const infer = async (model: string, inputs: Tensor[], outputs?: string[]) => {
  const rs = await lastValueFrom(server.infer({ model, inputs, ...(outputs ? { outputs: outputs.map((name) => ({ name })) } : {}) }).pipe(toArray()));
  return new Map(rs[rs.length - 1]!.outputs.map((t) => [t.name, t]));
};
const fp = (t: Tensor | undefined) => (t ? Array.from(t.data as Float32Array) : []);
const stats = (model: string) => server.modelStatistics(model).model_stats[0]!;

test('routed: the switch runs the English branch, else the default returns a literal; counted per case', async () => {
  const en = await infer('routed', [createTensor('LANG', 'BYTES', [1, 1], ['en']), createTensor('X', 'FP32', [1, 1], [1])]);
  assert.deepEqual(tensorStrings(en.get('LABEL')!), ['en']);
  assert.deepEqual(fp(en.get('SCORE')), [1.25]);
  const xx = await infer('routed', [createTensor('LANG', 'BYTES', [1, 1], ['xx']), createTensor('X', 'FP32', [1, 1], [1])]);
  assert.deepEqual(tensorStrings(xx.get('LABEL')!), ['unsupported language']);
  assert.deepEqual(xx.get('LABEL')!.shape, [1, 1], 'the literal gets the batch dim of a batching pipeline');
  assert.equal(xx.has('SCORE'), false, 'an optional output the return does not give is left out');
  await assert.rejects(infer('routed', [createTensor('LANG', 'BYTES', [2, 1], ['en', 'de']), createTensor('X', 'FP32', [2, 1], [1, 2])]),
    (e: { kind?: string; message?: string }) => e.kind === 'INVALID_ARG' && /switch#1: condition 'lang == 'en'': tensor 'lang' has 2 elements/.test(e.message ?? ''));
  const s = stats('routed');
  assert.deepEqual(s.branch_stats?.map((b) => [b.switch, b.case, b.taken, b.skipped]), [
    ['switch#1', '0', 1, 1], ['switch#1', '1', 0, 2], ['switch#1', 'default', 1, 1],
  ]);
  const skipped = new Map(s.step_stats!.map((st) => [st.step, st.skipped ?? 0]));
  assert.ok([...skipped.values()].some((n) => n > 0), JSON.stringify(s.step_stats));
});

test('early: a return answers at once and cancels the slow step still running', async () => {
  const t0 = performance.now();
  const out = await infer('early', [createTensor('LANG', 'BYTES', [1, 1], ['stop']), createTensor('X', 'FP32', [1, 1], [1])]);
  assert.ok(performance.now() - t0 < 1000, 'the run did not wait for the 1.5 s step');
  assert.deepEqual(tensorStrings(out.get('LABEL')!), ['stopped']);
  assert.deepEqual(fp(out.get('SCORE')), [0]);
  const steps = stats('early').step_stats!;
  assert.deepEqual(steps.map((s) => [s.step, s.count, s.fail]).filter(([step]) => step === 'slow'), [['slow', 0, 0]], 'cancelled: neither done nor failed');
});

test('routed: cancelling a request reaches the slow step of the case it took', async () => {
  const ac = new AbortController();
  const t0 = performance.now();
  const run = lastValueFrom(server.infer({ model: 'routed', inputs: [createTensor('LANG', 'BYTES', [1, 1], ['slow']), createTensor('X', 'FP32', [1, 1], [1])], signal: ac.signal }));
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(run, (e: { kind?: string }) => e.kind === 'CANCELLED');
  assert.ok(performance.now() - t0 < 1000);
});

test('mapped: items in order, their calls batched together at the callee; empty and too many', async () => {
  const xs = createTensor('XS', 'FP32', [8, 1], [0, 1, 2, 3, 4, 5, 6, 7]);
  const out = await infer('mapped', [xs]);
  assert.deepEqual(out.get('YS')!.shape, [8, 1]);
  assert.deepEqual(fp(out.get('YS')), [0, 1, 2, 3, 4, 5, 6, 7]);
  // A model records its statistics just after its responses go out.
  for (let i = 0; i < 100 && stats('batched').inference_count < 8; i++) await new Promise((r) => setTimeout(r, 5));
  const callee = stats('batched');
  assert.equal(callee.inference_count, 8);
  assert.ok(callee.execution_count < 8, `items reached the batcher together: ${callee.execution_count} executions for 8 items`);
  assert.ok(callee.batch_stats.some((b) => b.batch_size > 1));
  const m = stats('mapped').step_stats!;
  assert.deepEqual(m.map((s) => [s.step, s.count, s.items]), [['map#1', 1, 8], ['map#1/batched', 8, undefined]]);

  const empty = await infer('mapped', [createTensor('XS', 'FP32', [0, 1], [])]);
  assert.deepEqual(empty.get('YS')!.shape, [0, 1]);
  await assert.rejects(infer('mapped', [createTensor('XS', 'FP32', [17, 1], new Array(17).fill(0))]),
    (e: { kind?: string; message?: string }) => e.kind === 'INVALID_ARG' && /more than max_items 16/.test(e.message ?? ''));
});

test('looped: carries its tensor while the condition holds; iterations counted; metrics per branch, map and loop', async () => {
  const out = await infer('looped', [createTensor('S0', 'FP32', [1], [0.3])]);
  assert.deepEqual(fp(out.get('S')).map((v) => v.toFixed(2)), ['1.05']); // 0.3 + 3 x 0.25: `while` false at 1.05
  const capped = await infer('looped', [createTensor('S0', 'FP32', [1], [-10])]);
  assert.deepEqual(fp(capped.get('S')), [-8], 'max 8 iterations, then the loop ends without an error');
  assert.equal(stats('looped').step_stats![0]!.iterations, 11);

  const metrics = await startMetricsServer(server, { port: 0, host: '127.0.0.1', config: {} });
  const text = await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
  await metrics.close();
  assert.match(text, /tributary_pipeline_branch_total\{model="routed",version="1",switch="switch#1",case="default"\} 1/);
  assert.match(text, /tributary_pipeline_map_items_total\{model="mapped",version="1",step="map#1",step_model="[^"]*"\} \d+/);
  assert.match(text, /tributary_pipeline_loop_iterations_total\{model="looped",version="1",step="loop#1",step_model="[^"]*"\} 11/);
  assert.match(text, /tributary_pipeline_step_skipped_total\{model="routed"/);
});
