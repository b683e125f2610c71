/**
 * What a captured request records, through the real server and the data plane's edge: the request,
 * each pipeline step, map item, loop iteration and BLS child call, linked parent to child, with
 * tensors and errors; what sampling (rate, models, a model's capture_rate) takes; and that an
 * unsampled request that fails still leaves its failing path.
 */
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import { createCapture, parseCaptureConfig, failingRecord, tensorOfRecord, type Capture, type CapturedRequest, type RecordNode, type RecordTensor } from '../../src/capture/index.js';
import { createDataPlane, type Edge } from '../../src/dataplane/index.js';
import type { InferenceRequest } from '../../src/inference/index.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { drained, memorySink, type MemorySink } from './memory-sink.js';

quietLog([/no model 'missing'|'missing'|execute\(\) failed/]);

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

const MAPPED = `
name: mapped
max_batch_size: 0
input: [{ name: XS, data_type: TYPE_FP32, dims: [-1] }]
output: [{ name: YS, data_type: TYPE_FP32, dims: [-1] }]
steps:
  - map:
      over: XS
      as: x
      steps:
        - model: caller
          inputs: { X: x }
          outputs: { Y: y }
      outputs: { y: YS }
`;

const LOOPED = `
name: looped
max_batch_size: 0
input: [{ name: S0, data_type: TYPE_FP32, dims: [1] }]
output: [{ name: S, data_type: TYPE_FP32, dims: [1] }]
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

const fixtures = new URL('../fixtures/bls/', import.meta.url).pathname;
let repo: TempRepo;
let server: LocalServer;
before(async () => {
  repo = tempRepo({
    'inc_nb/config.pbtxt': 'name: "inc_nb"\nbackend: "typescript"\nmax_batch_size: 0\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n',
    'inc_nb/1/model.ts': INC,
    'mapped/config.yaml': MAPPED,
    'looped/config.yaml': LOOPED,
  });
  cpSync(join(fixtures, 'ident'), join(repo.dir, 'ident'), { recursive: true });
  cpSync(join(fixtures, 'caller'), join(repo.dir, 'caller'), { recursive: true });
  cpSync(join(fixtures, 'streamer'), join(repo.dir, 'streamer'), { recursive: true });
  // A model that asks for its own capture rate (config parameter capture_rate).
  cpSync(join(fixtures, 'ident'), join(repo.dir, 'own_rate'), { recursive: true });
  repo.file('own_rate/config.pbtxt', 'name: "own_rate"\nbackend: "identity"\nmax_batch_size: 8\ninput [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]\noutput [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]\nparameters { key: "capture_rate" value { string_value: "1" } }\n');
  server = await createServer({ modelRepository: repo.dir });
});
after(async () => {
  await server?.close();
  repo?.remove();
});

async function captured(config: string[]): Promise<{ edge: Edge; sink: MemorySink; capture: Capture }> {
  const sink = memorySink();
  const capture = await createCapture(parseCaptureConfig(['dir=/unused', ...config])!, { sinks: [sink], modelConfig: (m) => server.modelConfig(m) });
  const edge = createDataPlane(server, { capture }).edge();
  return { edge, sink, capture };
}

const noHeaders = { get: () => undefined, entries: () => [] };

async function send(edge: Edge, request: InferenceRequest): Promise<Tensor[] | Error> {
  try {
    const rs = await lastValueFrom(edge.infer(request, noHeaders).responses.pipe(toArray()));
    return rs[rs.length - 1]!.outputs;
  } catch (e) {
    return e as Error;
  }
}

const fp = (t: RecordTensor | undefined) => Array.from((t ? tensorOfRecord(t)!.data : []) as ArrayLike<number>);

/** The tree as `kind step/model` lines, indented by depth. */
function shape(req: CapturedRequest): string[] {
  const out: string[] = [];
  const walk = (n: RecordNode, depth: number) => {
    out.push(`${'  '.repeat(depth)}${n.record.kind} ${n.record.step ?? n.record.model}`);
    for (const c of n.children) walk(c, depth + 1);
  };
  for (const n of req.tree) walk(n, 0);
  return out;
}

test('a sampled map request records each item, the step in it and the BLS call the step makes, linked', async () => {
  const { edge, sink, capture } = await captured(['rate=1']);
  const out = await send(edge, { model: 'mapped', id: 'm-1', inputs: [createTensor('XS', 'FP32', [2], [1, 2])] });
  assert.ok(!(out instanceof Error));
  assert.deepEqual(Array.from(out[0]!.data as Float32Array), [4, 6]);
  await drained();
  const [req] = sink.requests();
  assert.equal(req!.requestId, 'm-1');
  assert.equal(req!.records.length, 8);
  const lines = shape(req!);
  assert.equal(lines[0], 'request mapped');
  assert.match(lines[1]!, /^ {2}step map#\d+$/);
  const map = lines[1]!.trim().split(' ')[1]!;
  assert.deepEqual(lines.slice(2), [
    `    item ${map}[0]`, '      step caller', '        call ident',
    `    item ${map}[1]`, '      step caller', '        call ident',
  ]);
  // The call's tensors are the script's child request and the answer it got: x + 1.
  const call = req!.records.find((r) => r.kind === 'call' && fp(req!.records.find((p) => p.record === r.parent)?.inputs[0])[0] === 2)!;
  assert.equal(call.model, 'ident');
  assert.deepEqual(fp(call.inputs[0]!), [3]);
  assert.deepEqual(fp(call.outputs![0]!), [3]);
  assert.deepEqual(fp(req!.root!.outputs![0]!), [4, 6]);
  assert.ok(req!.records.every((r) => r.sampled && r.duration_ms >= 0 && r.error === undefined));
  assert.equal(capture.counts().captured, 8);
  await capture.close();
});

test('a loop records one iteration per turn, each with the carried value it ran on', async () => {
  const { edge, sink, capture } = await captured(['rate=1']);
  await send(edge, { model: 'looped', inputs: [createTensor('S0', 'FP32', [1], [0])] });
  await drained();
  const [req] = sink.requests();
  const iterations = req!.records.filter((r) => r.kind === 'iteration');
  assert.equal(iterations.length, 4);
  assert.deepEqual(iterations.map((r) => fp(r.inputs.find((t) => t.name === 's'))[0]), [0, 0.25, 0.5, 0.75]);
  assert.ok(iterations.every((it) => req!.records.some((r) => r.parent === it.record && r.step === 'inc_nb')));
  // A request without an id is recorded under its capture id.
  assert.equal(req!.requestId, req!.capture);
  await capture.close();
});

test('an unsampled request that fails still records its failing path: the failed hops, their inputs and errors', async () => {
  const { edge, sink, capture } = await captured(['rate=0']);
  assert.ok(!((await send(edge, { model: 'mapped', inputs: [createTensor('XS', 'FP32', [1], [5])] })) instanceof Error));
  const err = await send(edge, { model: 'mapped', id: 'bad', inputs: [createTensor('XS', 'FP32', [1], [5])], parameters: { target: 'missing' } });
  assert.ok(err instanceof Error);
  await drained();
  const reqs = sink.requests();
  assert.equal(reqs.length, 1, 'the request that succeeded left nothing');
  const req = reqs[0]!;
  assert.equal(req.requestId, 'bad');
  assert.ok(req.records.every((r) => !r.sampled && r.error !== undefined));
  const failing = failingRecord(req)!;
  assert.equal(failing.kind, 'call');
  assert.equal(failing.model, 'missing');
  assert.deepEqual(fp(failing.inputs[0]!), [6]);
  assert.match(failing.error!, /missing/);
  assert.deepEqual(shape(req).map((l) => l.trim().split(' ')[0]), ['request', 'step', 'item', 'step', 'call']);
  assert.equal(req.root!.parameters?.target, 'missing');
  await capture.close();
});

test('failures=0 keeps no unsampled failure', async () => {
  const { edge, sink, capture } = await captured(['rate=0', 'failures=0']);
  assert.ok((await send(edge, { model: 'mapped', inputs: [createTensor('XS', 'FP32', [1], [5])], parameters: { target: 'missing' } })) instanceof Error);
  await drained();
  assert.equal(sink.lines.length, 0);
  await capture.close();
});

test('rate 0.5 records exactly every other request, models= limits the scope, and a model\'s capture_rate brings it in', async () => {
  const { edge, sink, capture } = await captured(['rate=0.5', 'models=ident']);
  const x = () => [createTensor('IN', 'FP32', [1, 1], [1])];
  for (let i = 0; i < 10; i++) await send(edge, { model: 'ident', id: `i${i}`, inputs: x() });
  for (let i = 0; i < 3; i++) await send(edge, { model: 'caller', inputs: [createTensor('X', 'FP32', [1], [1])] });
  for (let i = 0; i < 3; i++) await send(edge, { model: 'own_rate', id: `o${i}`, inputs: x() });
  await drained();
  const ids = sink.requests().map((r) => r.requestId);
  assert.deepEqual(ids, ['i0', 'i2', 'i4', 'i6', 'i8', 'o0', 'o1', 'o2']);
  await capture.close();
});

test('nothing captured reaches the response: the answer is the same with capture on and off', async () => {
  const { edge, capture } = await captured(['rate=1', 'redact=OUT']);
  const plain = createDataPlane(server).edge();
  const req = () => ({ model: 'caller', inputs: [createTensor('X', 'FP32', [2], [1, 2])] });
  const on = await lastValueFrom(edge.infer(req(), noHeaders).responses);
  const off = await lastValueFrom(plain.infer(req(), noHeaders).responses);
  assert.deepEqual({ ...on, outputs: on.outputs.map((t) => [t.name, Array.from(t.data as Float32Array)]) }, { ...off, outputs: off.outputs.map((t) => [t.name, Array.from(t.data as Float32Array)]) });
  assert.equal(on.id, undefined);
  assert.equal(on.parameters, undefined);
  await capture.close();
});

test('a decoupled model\'s responses are each recorded, up to 64; the rest are counted', async () => {
  const { edge, sink, capture } = await captured(['rate=1']);
  const rs = await lastValueFrom(edge.infer({ model: 'streamer', id: 's', inputs: [createTensor('N', 'INT32', [1], [70])] }, noHeaders).responses.pipe(toArray()));
  assert.equal(rs.filter((r) => r.outputs.length > 0).length, 70, 'every response reaches the caller');
  await drained();
  const root = sink.requests()[0]!.root!;
  assert.equal(root.responses!.length, 64);
  assert.equal(root.responses_dropped, 6);
  assert.deepEqual(fp(root.responses![5]![0]), [5]);
  await capture.close();
});

test('request-records bounds one request\'s records; past it they are dropped and counted', async () => {
  const { edge, sink, capture } = await captured(['rate=1', 'request-records=3']);
  await send(edge, { model: 'looped', inputs: [createTensor('S0', 'FP32', [1], [0])] });
  await drained();
  assert.equal(sink.lines.length, 3);
  assert.ok(sink.requests()[0]!.root, 'the request\'s own record is kept');
  assert.equal(capture.counts().dropped.request, 10 - 3, 'the request, the loop node, 4 iterations and their 4 steps are 10 records');
  await capture.close();
});

test('failures=N keeps at most N unsampled failed requests a second', async () => {
  const { edge, sink, capture } = await captured(['rate=0', 'failures=1']);
  for (let i = 0; i < 5; i++) await send(edge, { model: 'caller', id: `f${i}`, inputs: [createTensor('X', 'FP32', [1], [i])], parameters: { target: 'missing' } });
  await drained();
  const kept = sink.requests().length;
  // Five requests a few ms apart: one second, or two when they straddle a second's end.
  assert.ok(kept >= 1 && kept <= 2, `${kept} kept`);
  assert.ok((capture.counts().dropped.failures ?? 0) >= 2 * (5 - kept), 'each refused request counts its records (the request and the failed call)');
  await capture.close();
});
