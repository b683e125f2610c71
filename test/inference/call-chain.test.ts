/**
 * Call cycles through pipelines, over real HTTP and gRPC servers: a script `a` (one instance)
 * calling a pipeline that runs `a` again (a plain step, a map body, a switch case, a loop body) is
 * refused at once with TRB_BLS_CYCLE naming the chain, and other clients of `a` are answered
 * meanwhile; a pipeline with max_inflight_requests is a link of the chain too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { status, type ServiceError } from '@grpc/grpc-js';
import { lastValueFrom, toArray } from 'rxjs';
import { TributaryError } from '../../src/errors.js';
import { createTensor } from '../../src/tensor/index.js';
import { startWireServers, type WireServers } from '../helpers/wire-servers.js';
import { quietLog } from '../helpers/quiet-log.js';

// A script whose BLS call closes a cycle throws; the server logs that as a warning, on purpose here.
quietLog([/execute\(\) failed: .*BLS call cycle/]);

/**
 * Without parameter `target` it echoes X. With one it first calls `target` (its input named by
 * `as`), then echoes; the call's error, if any, fails the request.
 */
const CALLER = `import { InferenceRequest, InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  async execute(requests: Request[]): Promise<InferenceResponse[]> {
    return Promise.all(requests.map(async (r) => {
      const x = r.input('X');
      const target = r.parameters.target;
      if (typeof target === 'string' && target !== '') {
        const as = String(r.parameters.as ?? 'X');
        const t = new Tensor(as, 'FP32', x.shape, x.data);
        await new InferenceRequest({ model: target, inputs: [t], parameters: { target: String(r.parameters.next ?? '') } }).exec();
      }
      return new InferenceResponse({ outputs: [new Tensor('X', 'FP32', x.shape, x.data)] });
    }));
  }
}
`;

const script = (name: string, count: number) => ({
  [`${name}/config.pbtxt`]: [
    `name: "${name}"`, 'backend: "typescript"', 'max_batch_size: 0',
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]',
    'output [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]',
    `instance_group [ { count: ${count} kind: KIND_CPU } ]`,
    'parameters [ { key: "type_check" value: { string_value: "off" } } ]', '',
  ].join('\n'),
  [`${name}/1/model.ts`]: CALLER,
});

const io = `
input:
  - { name: X, data_type: TYPE_FP32, dims: [-1] }
output:
  - { name: Y, data_type: TYPE_FP32, dims: [-1] }
`;

const PIPELINES: Record<string, string> = {
  'p/config.yaml': `name: p\nmax_batch_size: 0\n${io}
steps:
  - model: a
    inputs: { X: X }
    outputs: { X: Y }
`,
  'p_map/config.yaml': `name: p_map
max_batch_size: 0
input:
  - { name: XS, data_type: TYPE_FP32, dims: [-1] }
output:
  - { name: YS, data_type: TYPE_FP32, dims: [-1] }
steps:
  - map:
      over: XS
      as: x
      steps:
        - model: a
          inputs: { X: x }
          outputs: { X: y }
      outputs: { y: YS }
`,
  'p_switch/config.yaml': `name: p_switch\nmax_batch_size: 0\n${io}
steps:
  - switch:
      cases:
        - when: "max(X) > 0"
          steps:
            - model: a
              inputs: { X: X }
              outputs: { X: Y }
      default:
        - return:
            outputs:
              Y: { value: "0" }
`,
  'p_loop/config.yaml': `name: p_loop\nmax_batch_size: 0\n${io}
steps:
  - loop:
      max: 2
      carry: { s: X }
      steps:
        - model: a
          inputs: { X: s }
          outputs: { X: s2 }
      next: { s: s2 }
      outputs: { s: Y }
`,
  // One run at a time: `b` (two instances) calling back into it while its only slot is held.
  'p_one/config.yaml': `name: p_one\nmax_batch_size: 0\nensemble_scheduling: { max_inflight_requests: 1 }\n${io}
steps:
  - model: b
    inputs: { X: X }
    outputs: { X: Y }
`,
  // Unbounded: the same call back is no cycle (the inner run takes a slot of its own).
  'p_many/config.yaml': `name: p_many\nmax_batch_size: 0\n${io}
steps:
  - model: b
    inputs: { X: X }
    outputs: { X: Y }
`,
};

/** Each case: the target `a` calls, the input name it sends, and the chain the error names. */
const CASES = [
  { target: 'p', as: 'X', chain: "'a' -> 'p' -> 'a'" },
  { target: 'p_map', as: 'XS', chain: "'a' -> 'p_map' -> 'a'" },
  { target: 'p_switch', as: 'X', chain: "'a' -> 'p_switch' -> 'a'" },
  { target: 'p_loop', as: 'X', chain: "'a' -> 'p_loop' -> 'a'" },
];

/** Far beyond a refused call's few milliseconds; a hang (the bug) runs into it. */
const BOUND_MS = 15_000;

describe('call cycles through pipelines', () => {
  let s: WireServers;
  before(async () => {
    s = await startWireServers({ ...script('a', 1), ...script('b', 2), ...PIPELINES });
  });
  after(async () => {
    await s?.close();
  });

  const httpInfer = (model: string, parameters: Record<string, string>) =>
    fetch(`${s.base}/v2/models/${model}/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [2], data: [1, 2] }], parameters }),
      signal: AbortSignal.timeout(BOUND_MS),
    }).then(async (r) => ({ status: r.status, body: await r.json() as { error?: string; outputs?: { data: number[] }[] } }));

  const grpcInfer = (model: string, parameters: Record<string, string>) =>
    new Promise<{ err: ServiceError | null; res: any }>((resolve) => {
      s.grpc.inference.ModelInfer({
        model_name: model,
        inputs: [{ name: 'X', datatype: 'FP32', shape: [2], contents: { fp32_contents: [1, 2] } }],
        parameters: Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, { string_param: v }])),
      }, { deadline: Date.now() + BOUND_MS }, (err: ServiceError | null, res: any) => resolve({ err, res }));
    });

  for (const c of CASES) {
    test(`HTTP: 'a' calling '${c.target}' fails at once naming ${c.chain}; another client of 'a' is answered`, async () => {
      const [cycle, plain] = await Promise.all([httpInfer('a', { target: c.target, as: c.as }), httpInfer('a', {})]);
      assert.equal(cycle.status, 503, JSON.stringify(cycle.body));
      assert.match(cycle.body.error ?? '', new RegExp(`BLS call cycle ${c.chain}: every instance of 'a' \\(instance_group count 1\\)`));
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      assert.deepEqual(plain.body.outputs?.[0]?.data, [1, 2]);
    });

    test(`gRPC: 'a' calling '${c.target}' is UNAVAILABLE naming ${c.chain}; another client of 'a' is answered`, async () => {
      const [cycle, plain] = await Promise.all([grpcInfer('a', { target: c.target, as: c.as }), grpcInfer('a', {})]);
      assert.equal(cycle.err?.code, status.UNAVAILABLE, String(cycle.err));
      assert.match(cycle.err.details, new RegExp(`BLS call cycle ${c.chain}`));
      assert.equal(plain.err, null);
      assert.deepEqual(plain.res.outputs[0].name, 'X');
    });
  }

  test('in process: the step that closes the cycle fails UNAVAILABLE, and the pipeline names it', async () => {
    // The hop raises TRB_BLS_CYCLE; the pipeline reports it as its step's failure (TRB_STEP_FAILED, the kind kept).
    const run = lastValueFrom(s.server.infer({ model: 'p', inputs: [createTensor('X', 'FP32', [1], [1])], parameters: { target: 'p' } }).pipe(toArray()));
    await assert.rejects(run, (e) => e instanceof TributaryError && e.kind === 'UNAVAILABLE'
      && /^in ensemble 'p', model 'a': execute\(\) failed: in ensemble 'p', model 'p': BLS call cycle 'p' -> 'a' -> 'p' -> 'a'/.test(e.message));
  });

  test('a pipeline with max_inflight_requests 1 called back through its own step is a cycle; an unbounded one is not', async () => {
    const one = await httpInfer('p_one', { target: 'p_one' });
    assert.equal(one.status, 503, JSON.stringify(one.body));
    assert.match(one.body.error ?? '', /BLS call cycle 'p_one' -> 'b' -> 'p_one': every in-flight slot of 'p_one' \(max_inflight_requests 1\)/);
    // `b` has two instances and p_many no bound: b -> p_many -> b runs, the inner `b` echoes.
    const many = await httpInfer('p_many', { target: 'p_many' });
    assert.equal(many.status, 200, JSON.stringify(many.body));
    assert.deepEqual(many.body.outputs?.[0]?.data, [1, 2]);
  });
});
