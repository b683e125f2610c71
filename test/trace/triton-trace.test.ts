/**
 * The trace extension's triton mode end to end: a real server with a pipeline of an ONNX step and
 * a TypeScript step (which calls another ONNX model through BLS), traced to a file in Triton's
 * JSON layout; sampling (rate, count), log frequency, the settings API at run time, TENSORS.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { lastValueFrom } from 'rxjs';
import { createDataPlane, type DataPlane, type SettingsPatch } from '../../src/dataplane/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { createLogger } from '../../src/logger.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { Tracer } from '../../src/trace/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import type { TempRepo } from '../helpers/temp-repo.js';
import { tracedPipelineRepo } from './traced-pipeline.js';

const ORDER = ['REQUEST_START', 'QUEUE_START', 'COMPUTE_START', 'COMPUTE_INPUT_END', 'COMPUTE_OUTPUT_START', 'COMPUTE_END', 'REQUEST_END'];


let repo: TempRepo;
let dir: string;

quietLog([]);

before(() => {
  repo = tracedPipelineRepo();
  dir = mkdtempSync(join(tmpdir(), 'tributary-trace-'));
});

after(() => {
  repo?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let files = 0;

/** A server whose trace file is fresh; the settings are the serve flags'. */
async function traced(settings: SettingsPatch): Promise<{ server: LocalServer; plane: DataPlane; file: string }> {
  const file = join(dir, `trace-${files++}.json`);
  const tracer = new Tracer(createLogger('trace'));
  const server = await createServer({ modelRepository: repo.dir, tracer });
  const plane = createDataPlane(server, { tracer, traceSettings: { trace_file: file, ...settings } });
  return { server, plane, file };
}

async function infer(server: LocalServer, model: string, x = [1, 2, 3, 4]): Promise<number[]> {
  const res = await lastValueFrom(server.infer({ model, inputs: [createTensor('X', 'FP32', [4], x)] }));
  return [...(res.outputs[0]!.data as Float32Array)];
}

interface Trace { id: number; model: string; parent?: number; stamps: { name: string; ns: number }[]; tensors: { activity: string; tensor: Record<string, string> }[] }

/** Triton's layout: a header object, a timestamps object and tensor objects per trace id. */
function parse(text: string): Trace[] {
  const byId = new Map<number, Trace>();
  const get = (id: number) => byId.get(id) ?? byId.set(id, { id, model: '', stamps: [], tensors: [] }).get(id)!;
  for (const o of JSON.parse(text) as Record<string, unknown>[]) {
    const t = get(o.id as number);
    if (o.model_name !== undefined) {
      t.model = o.model_name as string;
      assert.equal(o.model_version, 1);
      if (o.parent_id !== undefined) t.parent = o.parent_id as number;
    } else if (o.timestamps) t.stamps.push(...(o.timestamps as Trace['stamps']));
    else t.tensors.push(o as unknown as Trace['tensors'][number]);
  }
  return [...byId.values()];
}

const roots = (ts: Trace[], model: string) => ts.filter((t) => t.model === model && t.parent === undefined);

test('rate 1: every request traced with its timestamps in order; steps and the BLS call under their parents', async () => {
  const { server, file } = await traced({ trace_level: ['TIMESTAMPS'], trace_rate: '1' });
  assert.deepEqual(await infer(server, 'pipe'), [12, 13, 14, 15]);
  assert.deepEqual(await infer(server, 'pipe'), [12, 13, 14, 15]);
  await server.close();
  const traces = parse(readFileSync(file, 'utf8'));
  assert.equal(traces.length, 8, 'per request: pipe, add1, script, add10');
  for (const t of traces) {
    assert.deepEqual(t.stamps.map((s) => s.name), ORDER, `${t.model} ${t.id}`);
    for (let i = 1; i < t.stamps.length; i++) assert.ok(t.stamps[i]!.ns >= t.stamps[i - 1]!.ns, `${t.model}: ${t.stamps[i]!.name} before ${t.stamps[i - 1]!.name}`);
    assert.equal(t.tensors.length, 0, 'TIMESTAMPS has no tensors');
  }
  const pipes = roots(traces, 'pipe');
  assert.equal(pipes.length, 2);
  for (const p of pipes) {
    const steps = traces.filter((t) => t.parent === p.id);
    assert.deepEqual(steps.map((s) => s.model).sort(), ['add1', 'script']);
    const script = steps.find((s) => s.model === 'script')!;
    const child = traces.filter((t) => t.parent === script.id);
    assert.deepEqual(child.map((c) => c.model), ['add10'], 'the BLS call is traced under the script');
    // A step starts inside its pipeline's compute span (it may be released after the pipeline
    // has its answer, so its REQUEST_END is not bounded).
    const at = (t: Trace, n: string) => t.stamps.find((s) => s.name === n)!.ns;
    for (const s of [...steps, ...child]) {
      assert.ok(at(s, 'REQUEST_START') >= at(p, 'COMPUTE_START') && at(s, 'REQUEST_START') <= at(p, 'COMPUTE_END'), s.model);
    }
  }
});

test('rate 2 traces every second request; count stops after that many', async () => {
  const half = await traced({ trace_level: ['TIMESTAMPS'], trace_rate: '2' });
  for (let i = 0; i < 6; i++) await infer(half.server, 'add1');
  await half.server.close();
  assert.equal(roots(parse(readFileSync(half.file, 'utf8')), 'add1').length, 3);

  const counted = await traced({ trace_level: ['TIMESTAMPS'], trace_rate: '1', trace_count: '2' });
  for (let i = 0; i < 5; i++) await infer(counted.server, 'pipe');
  await counted.server.close();
  const traces = parse(readFileSync(counted.file, 'utf8'));
  assert.equal(roots(traces, 'pipe').length, 2);
  assert.equal(traces.length, 8, 'the steps of the traced requests only');
});

test('log frequency N: a complete file <file>.<index> every N traces, the rest at close', async () => {
  const { server, file } = await traced({ trace_level: ['TIMESTAMPS'], trace_rate: '1', log_frequency: '2' });
  for (let i = 0; i < 5; i++) await infer(server, 'add1');
  await server.close();
  assert.equal(existsSync(file), false);
  assert.deepEqual([0, 1, 2].map((i) => parse(readFileSync(`${file}.${i}`, 'utf8')).length), [2, 2, 1]);
  assert.equal(existsSync(`${file}.3`), false);
});

test('the settings API turns tracing on and off at run time, globally and per model', async () => {
  const { server, plane, file } = await traced({});
  assert.ok(plane.serverMetadata().extensions.includes('trace'));
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', dataPlane: plane });
  const post = (path: string, body: unknown) => fetch(`http://127.0.0.1:${http.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  try {
    await infer(server, 'add1', [0, 0, 0, 0]); // default level OFF: not traced
    assert.equal((await post('/v2/trace/setting', { trace_level: ['TIMESTAMPS'], trace_rate: '1' })).status, 200);
    await infer(server, 'add1', [1, 1, 1, 1]);
    assert.equal((await post('/v2/trace/setting', { trace_level: ['OFF'] })).status, 200);
    await infer(server, 'add1', [2, 2, 2, 2]);
    // One model on while the rest stay off.
    assert.equal((await post('/v2/models/add10/trace/setting', { trace_level: ['TIMESTAMPS'] })).status, 200);
    await infer(server, 'add1', [3, 3, 3, 3]);
    await infer(server, 'add10', [4, 4, 4, 4]);
  } finally {
    await http.close();
    await server.close();
  }
  const traces = parse(readFileSync(file, 'utf8'));
  assert.deepEqual(traces.map((t) => t.model), ['add1', 'add10']);
});

test('TENSORS adds the input and output tensors of every traced model', async () => {
  const { server, file } = await traced({ trace_level: ['TIMESTAMPS', 'TENSORS'], trace_rate: '1' });
  await infer(server, 'pipe', [1, 2, 3, 4]);
  await server.close();
  const traces = parse(readFileSync(file, 'utf8'));
  const pipe = roots(traces, 'pipe')[0]!;
  assert.deepEqual(pipe.tensors.map((t) => [t.activity, t.tensor.name, t.tensor.data, t.tensor.shape, t.tensor.dtype]), [
    ['TENSOR_QUEUE_INPUT', 'X', '1,2,3,4', '4', 'FP32'],
    ['TENSOR_BACKEND_OUTPUT', 'Y', '12,13,14,15', '4', 'FP32'],
  ]);
  const add1 = traces.find((t) => t.model === 'add1')!;
  assert.deepEqual(add1.tensors.map((t) => [t.activity, t.tensor.data]), [['TENSOR_QUEUE_INPUT', '1,2,3,4'], ['TENSOR_BACKEND_OUTPUT', '2,3,4,5']]);
  assert.equal(pipe.stamps.length, ORDER.length);
});
