import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import { TributaryError } from '../../../src/errors.js';
import { getLogSettings, setLogSink, updateLogSettings } from '../../../src/logger.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { ECHO_MODEL, scriptRepo, spinModel, type ScriptModel } from './script-repo.js';

/**
 * The fast path (fast-path-gate.ts): a short script's execute() runs on the main thread under
 * fast_path_ms; one that turns slow is stopped there and re-run once on its isolate thread.
 */

/** Counts its executions and answers [count, spin result]; spins MS ms first. */
const COUNTING_SPIN: ScriptModel = {
  ...spinModel(1),
  params: { fast_path_ms: '2' },
  code: `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
let runs = 0;
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      runs++;
      const ms = (r.input('MS').data as Int32Array)[0];
      const t0 = Date.now();
      while (Date.now() - t0 < ms);
      return new InferenceResponse({ outputs: [new Tensor('T', 'FP64', [2], [runs, ms])] });
    });
  }
}
`,
};

/** Counts N on a custom counter, then spins MS ms. */
const METERED_SPIN: ScriptModel = {
  ...spinModel(1),
  params: { fast_path_ms: '2' },
  code: `import { InferenceResponse, MetricFamily, Tensor, type Request } from 'tributary/bls';
const counted = new MetricFamily({ name: 'spin_counted_total', description: 'N summed', kind: 'counter' }).metric();
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const ms = (r.input('MS').data as Int32Array)[0];
      counted.increment(ms > 0 ? 1000 : 1);
      const t0 = Date.now();
      while (Date.now() - t0 < ms);
      return new InferenceResponse({ outputs: [new Tensor('T', 'FP64', [2], [0, ms])] });
    });
  }
}
`,
};

/** Calls echo twice, one child after the other, then spins MS ms after the first child's answer. */
const CHAIN_CODE = `import { InferenceRequest, InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  async execute([r]: Request[]): Promise<InferenceResponse[]> {
    const x = r.input('IN');
    const ms = (r.input('MS').data as Int32Array)[0];
    const a = (await new InferenceRequest({ model: 'echo', inputs: [new Tensor('IN', 'FP32', x.shape, x.data)] }).exec()).output('OUT');
    const t0 = Date.now();
    while (Date.now() - t0 < ms);
    const b = (await new InferenceRequest({ model: 'echo', inputs: [new Tensor('IN', 'FP32', a.shape, (a.data as Float32Array).map((v) => v * 2))] }).exec()).output('OUT');
    return [new InferenceResponse({ outputs: [new Tensor('OUT', 'FP32', b.shape, b.data)] })];
  }
}
`;
const chain = (fastPathMs: string): ScriptModel => ({
  config: [
    'max_batch_size: 0',
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] }, { name: "MS" data_type: TYPE_INT32 dims: [ 1 ] } ]',
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]',
  ],
  code: CHAIN_CODE,
  params: { fast_path_ms: fastPathMs },
});

/**
 * Calls echo with [runs] (its own count of execute() runs), spins MS ms after the answer, then calls
 * echo again with the doubled answer: a re-run asks its first child for something else.
 */
const DIVERGING: ScriptModel = {
  config: [
    'max_batch_size: 0',
    'input [ { name: "MS" data_type: TYPE_INT32 dims: [ 1 ] } ]',
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]',
  ],
  params: { fast_path_ms: '2' },
  code: `import { InferenceRequest, InferenceResponse, Tensor, type Request } from 'tributary/bls';
let runs = 0;
const echo = async (v: number) => (await new InferenceRequest({ model: 'echo', inputs: [new Tensor('IN', 'FP32', [1], [v])] }).exec()).output('OUT').data as Float32Array;
export default class Model {
  async execute([r]: Request[]): Promise<InferenceResponse[]> {
    const ms = (r.input('MS').data as Int32Array)[0];
    const a = await echo(++runs);
    const t0 = Date.now();
    while (Date.now() - t0 < ms);
    const b = await echo(a[0]! * 2);
    return [new InferenceResponse({ outputs: [new Tensor('OUT', 'FP32', [1], b)] })];
  }
}
`,
};

/** Counts a custom metric, calls echo, then spins MS ms: a call that changed a metric is not re-run. */
const METERED_CHAIN: ScriptModel = {
  ...DIVERGING,
  code: `import { InferenceRequest, InferenceResponse, MetricFamily, Tensor, type Request } from 'tributary/bls';
const counted = new MetricFamily({ name: 'chain_counted_total', description: 'calls', kind: 'counter' }).metric();
export default class Model {
  async execute([r]: Request[]): Promise<InferenceResponse[]> {
    const ms = (r.input('MS').data as Int32Array)[0];
    counted.increment(1);
    const a = (await new InferenceRequest({ model: 'echo', inputs: [new Tensor('IN', 'FP32', [1], [ms])] }).exec()).output('OUT');
    const t0 = Date.now();
    while (Date.now() - t0 < ms);
    return [new InferenceResponse({ outputs: [new Tensor('OUT', 'FP32', [1], a.data)] })];
  }
}
`,
};

/** Decoupled: sends N responses in one synchronous run (past the sandbox's batch of 256), spins MS, then final. */
const SENDER: ScriptModel = {
  config: [
    'max_batch_size: 0',
    'model_transaction_policy { decoupled: true }',
    'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "MS" data_type: TYPE_INT32 dims: [ 1 ] } ]',
    'output [ { name: "I" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  ],
  params: { fast_path_ms: '2' },
  code: `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): void {
    const r = requests[0]!;
    const s = r.responseSender();
    const n = (r.input('N').data as Int32Array)[0]!;
    const ms = (r.input('MS').data as Int32Array)[0]!;
    for (let i = 0; i < n; i++) s.send(new InferenceResponse({ outputs: [new Tensor('I', 'INT32', [1], [i])] }));
    const t0 = Date.now();
    while (Date.now() - t0 < ms);
    s.send(undefined, { final: true });
  }
}
`,
};
/** Sends N responses and lets them go out (the queue flushes once microtasks pass without a send), then spins MS. */
const FLUSHING_SENDER: ScriptModel = {
  ...SENDER,
  code: SENDER.code
    .replace('execute(requests: Request[]): void', 'async execute(requests: Request[]): Promise<void>')
    .replace('const t0 = Date.now();', 'for (let k = 0; k < 4; k++) await undefined;\n    const t0 = Date.now();'),
};

describe('the fast path of short scripts', () => {
  let repo: TempRepo;
  let server: Server;
  const lines: string[] = [];
  const verbose = getLogSettings().log_verbose_level;
  before(async () => {
    setLogSink((line) => { lines.push(line); });
    updateLogSettings({ log_verbose_level: 1 });
    repo = scriptRepo({ echo: ECHO_MODEL, counting: COUNTING_SPIN, chain_fast: chain('2'), chain_slow: chain('0'), sender: SENDER, sender2: FLUSHING_SENDER, metered: METERED_SPIN, diverging: DIVERGING, metered_chain: METERED_CHAIN });
    server = await createServer({ modelRepository: repo.dir });
  });
  after(async () => {
    await server.close();
    repo.remove();
    updateLogSettings({ log_verbose_level: verbose });
    setLogSink((line) => process.stderr.write(`${line}\n`));
  });

  const said = (model: string, what: string) => lines.filter((l) => l.includes(`model '${model}' instance 0: execute() ${what}`)).length;
  /**
   * Calls `once` until the instance's calls run on the main thread (its gate averages the script's
   * CPU time per call, which a loaded machine raises; fast_path_ms 2 leaves room for that). On a
   * loaded machine preemption stops calls soon after one another and the gate's cooldown doubles:
   * it may take thousands of calls, so the bound is time (each call here takes well under 1 ms).
   */
  const warm = async (model: string, once: () => Promise<unknown>) => {
    const last = () => lines.filter((l) => l.includes(`model '${model}' instance 0: execute() `)).at(-1) ?? '';
    const until = Date.now() + 20_000;
    for (let i = 0; (i < 200 || Date.now() < until) && !last().includes('now runs'); i++) await once();
    assert.match(last(), /now runs on the main thread/, `${model} reached the fast path`);
  };
  /**
   * Warm `model` onto the main thread, then make the call `attempt` that should be stopped there.
   * The gate reads the script's CPU time per call, which a loaded machine raises: the call may then
   * run on the isolate thread from the start (nothing to stop, nothing to test), so it is tried
   * again, at most 5 times. Returns the stopped attempt's result, what the others returned, and
   * the stop lines logged during the stopped attempt (a starved CPU can also stop a warming call,
   * so the whole log's count says nothing about the attempt).
   */
  const untilStopped = async <T>(model: string, once: () => Promise<unknown>, attempt: () => Promise<T>, prepare?: () => Promise<unknown>) => {
    const missed: T[] = [];
    for (let i = 0; i < 5; i++) {
      await warm(model, once);
      await prepare?.();
      const from = lines.length;
      const result = await attempt();
      const stops = lines.slice(from).filter((l) => l.includes(`model '${model}' instance 0: execute() ran past fast_path_ms`));
      if (stops.length > 0) return { result, missed, stops };
      missed.push(result);
    }
    throw new Error(`${model}: no call was stopped on the main thread in 5 attempts`);
  };
  const count = (ms: number) =>
    lastValueFrom(server.infer({ model: 'counting', inputs: [createTensor('MS', 'INT32', [1], [ms])] })).then((r) => [...(r.outputs[0]!.data as Float64Array)]);

  test('a short script takes the main thread after its first call', async () => {
    // One call is enough on a quiet machine; a loaded one raises the CPU time the gate averages,
    // and warm() calls again until it has fallen (the answers are checked on every call).
    let i = 0;
    await warm('echo', async () => {
      const r = await lastValueFrom(server.infer({ model: 'echo', inputs: [createTensor('IN', 'FP32', [2], [i, 1])] }));
      assert.deepEqual([...(r.outputs[0]!.data as Float32Array)], [i++, 1]);
    });
    assert.ok(said('echo', 'now runs on the main thread') >= 1);
  });

  test('a script that turns slow is stopped on the main thread and its request answered once from its isolate thread, the loop free meanwhile', async () => {
    const h = monitorEventLoopDelay({ resolution: 1 });
    let runs = 0;
    const { result: responses, missed, stops } = await untilStopped('counting', () => count(0), async () => {
      h.reset();
      h.enable();
      const r = await lastValueFrom(server.infer({ model: 'counting', inputs: [createTensor('MS', 'INT32', [1], [400])] }).pipe(toArray()));
      h.disable();
      return r;
    }, async () => { runs = (await count(0))[0]!; });
    // An attempt the gate sent off the main thread from the start ran once.
    for (const m of missed) assert.equal(m.length, 1);
    h.enable();
    // Calls after a stop stay off the main thread, however long they take.
    const later = [await count(300), await count(300)];
    h.disable();
    assert.equal(responses.length, 1);
    // The stopped attempt counted a run (unless a starved CPU spent the whole bound before its first
    // statement) and the re-run the next: the script's own state is kept, and the answer is one.
    const [n, spun] = [...(responses[0]!.outputs[0]!.data as Float64Array)];
    assert.equal(spun, 400);
    assert.ok(n === runs + 2 || n === runs + 1, `runs ${runs}, answered ${n}`);
    assert.deepEqual(later, [[n! + 1, 300], [n! + 2, 300]]);
    assert.equal(stops.length, 1);
    assert.match(stops[0]!, /ran past fast_path_ms \(2 ms\) on the main thread and was stopped/);
    // The stop itself holds the loop for the bound plus isolated-vm's timer latency (0.1-16 ms
    // measured, on a loaded machine); had any of the three calls run on the main thread, 300 ms.
    // The p99 target is the bench's figure (npm run bench bls), where the machine is quiet.
    const ms = (ns: number) => (ns / 1e6).toFixed(2);
    assert.ok(h.max / 1e6 < 100, `event-loop delay max ${ms(h.max)} ms (p99 ${ms(h.percentile(99))} ms) while the script ran 1000 ms`);
  });

  test('a stopped and re-run call counts its custom metric changes once', async () => {
    const run = (ms: number) => lastValueFrom(server.infer({ model: 'metered', inputs: [createTensor('MS', 'INT32', [1], [ms])] }));
    // Every answered call adds its increment once: 1 for the warm calls, 1000 for the spinning one.
    let expected = 0;
    const { missed, stops } = await untilStopped('metered', () => run(0).then(() => { expected += 1; }), () => run(50).then(() => { expected += 1000; }));
    // Stopped on the main thread after its increment, then re-run on its isolate thread, which
    // increments again: the stopped run's change must not reach the counter.
    assert.equal(stops.length, 1);
    assert.ok(missed.length < 5);
    const series = () => {
      for (const f of server.customMetrics?.().families() ?? []) if (f.name === 'spin_counted_total') for (const x of f.series()) return x.value;
      return undefined;
    };
    const until = Date.now() + 5000;
    while (series() !== expected && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.equal(series(), expected);
  });

  test('BLS continuations give the same answers with the fast path on and off, also when a continuation is long', async () => {
    const once = async (model: string, ms: number) => {
      const r = await lastValueFrom(server.infer({ model, inputs: [createTensor('IN', 'FP32', [3], [1, 2, 3]), createTensor('MS', 'INT32', [1], [ms])] }));
      assert.deepEqual([...(r.outputs[0]!.data as Float32Array)], [2, 4, 6], `${model}, MS ${ms}`);
    };
    await warm('chain_fast', () => once('chain_fast', 0));
    for (const model of ['chain_fast', 'chain_slow']) for (const ms of [0, 30, 0]) await once(model, ms);
    assert.equal(said('chain_slow', 'now runs on the main thread'), 0);
  });

  const echoCalls = () => server.modelStatistics('echo').model_stats[0]!.inference_count;

  test('a continuation stopped on the main thread is re-run on its isolate thread, its children answered from the record: each runs once', async () => {
    const once = (ms: number) => lastValueFrom(server.infer({ model: 'chain_fast', inputs: [createTensor('IN', 'FP32', [3], [1, 2, 3]), createTensor('MS', 'INT32', [1], [ms])] }));
    const { result, stops } = await untilStopped('chain_fast', () => once(0), async () => {
      const before = echoCalls();
      const r = await once(30);
      return { out: [...(r.outputs[0]!.data as Float32Array)], calls: echoCalls() - before };
    });
    assert.deepEqual(result.out, [2, 4, 6]);
    // The first child answered the stopped run and, from the record, its re-run; the second is the re-run's.
    assert.equal(result.calls, 2);
    assert.equal(stops.length, 1);
  });

  test('a re-run that asks its first child for something else calls it for real', async () => {
    const once = (ms: number) => lastValueFrom(server.infer({ model: 'diverging', inputs: [createTensor('MS', 'INT32', [1], [ms])] }))
      .then((r) => (r.outputs[0]!.data as Float32Array)[0]!);
    // A loaded machine can stop the call before its first child (preempted past fast_path_ms in
    // the first step): then there is nothing recorded to differ from, the re-run's two calls are
    // its own, and the case is tried again (at most 5 times), its answer checked all the same.
    for (let attempt = 0; attempt < 5; attempt++) {
      let runs = 0;
      const { result, stops } = await untilStopped('diverging', () => once(0), async () => {
        const before = echoCalls();
        const out = await once(30);
        return { out, calls: echoCalls() - before };
      }, async () => { runs = (await once(0)) / 2; });
      assert.equal(stops.length, 1);
      // The stopped run counted run runs+1 and asked echo for it; the re-run, run runs+2, asked for
      // that instead, then for its double: three calls, and the re-run's answer.
      assert.equal(result.out, (runs + 2) * 2);
      if (result.calls === 2) continue;
      assert.equal(result.calls, 3);
      return;
    }
    assert.fail('diverging: every stop in 5 attempts came before the first child was asked');
  });

  test('a call that changed a custom metric is not re-run: its continuation stays on the isolate thread', async () => {
    const once = (ms: number) => lastValueFrom(server.infer({ model: 'metered_chain', inputs: [createTensor('MS', 'INT32', [1], [ms])] }));
    await warm('metered_chain', () => once(0));
    const from = lines.length;
    const r = await once(30);
    assert.deepEqual([...(r.outputs[0]!.data as Float32Array)], [30]);
    assert.equal(lines.slice(from).filter((l) => l.includes("model 'metered_chain' instance 0: execute() ran past")).length, 0);
  });

  test('a decoupled call stopped after its responses went out fails with TRB_SCRIPT_FAST_PATH_STOPPED; one stopped before is re-run', async () => {
    const send = (model: string, n: number, ms: number) => lastValueFrom(server.infer({
      model, inputs: [createTensor('N', 'INT32', [1], [n]), createTensor('MS', 'INT32', [1], [ms])],
    }).pipe(toArray()));
    const values = (rs: { outputs: { data: unknown }[] }[]) => rs.flatMap((r) => r.outputs.map((o) => (o.data as Int32Array)[0]));
    // Two responses still queued in the sandbox when the stop came: never sent, so re-run.
    const stopped = await untilStopped('sender', () => send('sender', 2, 0), () => send('sender', 2, 50));
    assert.deepEqual(values(stopped.result), [0, 1]);
    for (const m of stopped.missed) assert.deepEqual(values(m), [0, 1]);
    assert.equal(stopped.stops.length, 1);
    // Its two responses went to the client before the spin: a re-run would send them twice.
    const { result, stops } = await untilStopped('sender2', () => send('sender2', 2, 0), () => send('sender2', 2, 50).then((rs) => ({ rs }), (e: unknown) => ({ e })));
    if ('rs' in result) {
      // A starved CPU can spend the bound before the responses went out: then the call is re-run,
      // and each response still reaches the client once.
      assert.deepEqual(values(result.rs), [0, 1]);
    } else {
      const err = result.e;
      assert.ok(err instanceof TributaryError, String(err));
      assert.equal(err.code, 'TRB_SCRIPT_FAST_PATH_STOPPED');
      assert.match(err.message, /model 'sender2': execute\(\) ran past fast_path_ms \(2 ms\)/);
    }
    assert.equal(stops.length, 1);
  });
});
