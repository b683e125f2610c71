/**
 * The "done when", on real servers over loopback: `greet` splits traffic between two
 * TypeScript variants, every response names its variant, the shadow serves its copies but no
 * client sees its answer, a sticky user keeps one variant over HTTP, gRPC, a pipeline step and a
 * BLS call, /metrics counts per variant, and a decoupled experiment streams over SSE and gRPC.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { startMetricsServer } from '../../src/metrics/index.js';
import { startWireServers, type WireServers } from '../helpers/wire-servers.js';
import { experimentRepoFiles } from './experiment-repo.js';

let s: WireServers;
before(async () => {
  s = await startWireServers(experimentRepoFiles());
});
after(async () => {
  await s?.close();
});

interface Answer { y: number; variant: string; version: string; parameters: Record<string, unknown> }

async function infer(model: string, x: number, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${s.base}/v2/models/${model}/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 1], data: [x] }] }),
  });
  const body = (await res.json()) as { outputs: { data: number[] }[]; parameters?: Record<string, unknown>; error?: string };
  assert.equal(res.status, 200, body.error);
  const p = body.parameters ?? {};
  return { y: body.outputs[0]!.data[0]!, variant: String(p.experiment_variant), version: String(p.experiment_variant_version), parameters: p };
}

const OFFSET: Record<string, number> = { greet_a: 1, greet_b: 2 };
const successes = (model: string) => s.server.modelStatistics(model).model_stats[0]!.inference_stats.success.count;

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

test('200 requests split 30-70% each, every response names its variant, no client sees the shadow, the shadow serves the copies', async () => {
  const counts = new Map<string, number>();
  for (let start = 0; start < 200; start += 10) {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, k) => infer('greet', start + k).then((a) => ({ a, x: start + k }))));
    for (const { a, x } of answers) {
      assert.ok(a.variant in OFFSET, `response names a variant: ${JSON.stringify(a.parameters)}`);
      assert.equal(a.version, '1');
      assert.equal(a.y, x + OFFSET[a.variant]!, `greet answered ${a.y} for X = ${x} through ${a.variant}`);
      assert.notEqual(a.y, x + 100, 'the shadow never answers a client');
      counts.set(a.variant, (counts.get(a.variant) ?? 0) + 1);
    }
  }
  for (const v of ['greet_a', 'greet_b']) {
    const n = counts.get(v) ?? 0;
    assert.ok(n >= 60 && n <= 140, `${v} served ${n} of 200`);
  }
  // Per-variant statistics come from the variants; the experiment's own count its requests.
  assert.equal(successes('greet_a') + successes('greet_b'), 200);
  assert.equal(successes('greet'), 200);
  await until(() => successes('greet_shadow') >= 200);
  assert.ok(successes('greet_shadow') >= 180, `the shadow served ${successes('greet_shadow')} of 200`);
});

test("20 requests with x-user: alice reach one variant, over HTTP, gRPC (unary and a stream), a pipeline step and a BLS call", async () => {
  const seen = new Set<string>();
  for (let i = 0; i < 20; i++) seen.add((await infer('greet', i, { 'x-user': 'alice' })).variant);
  assert.equal(seen.size, 1, `alice reached ${[...seen].join(', ')}`);
  const alice = [...seen][0]!;
  // Other users spread over both variants: the header, not chance, kept alice on one.
  const others = new Set<string>();
  for (let u = 0; u < 24 && others.size < 2; u++) others.add((await infer('greet', 0, { 'x-user': `user-${u}` })).variant);
  assert.equal(others.size, 2);

  // gRPC metadata routes the same as the HTTP header: the hash is of the value alone.
  const md = new Metadata();
  md.set('x-user', 'alice');
  const req = { model_name: 'greet', inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 1] }], raw_input_contents: [Buffer.from(Float32Array.of(5).buffer)] };
  for (let i = 0; i < 5; i++) {
    const res = await new Promise<any>((resolve, reject) => s.grpc.inference.ModelInfer(req, md, (e: ServiceError | null, r: any) => (e ? reject(e) : resolve(r))));
    assert.equal(res.parameters.experiment_variant.string_param, alice);
    assert.equal(res.parameters.experiment_variant_version.string_param, '1');
    assert.equal(Buffer.from(res.raw_output_contents[0]).readFloatLE(0), 5 + OFFSET[alice]!);
  }

  // A gRPC stream's metadata goes with each of its requests.
  const streamed: any[] = [];
  await new Promise<void>((resolve, reject) => {
    const call = s.grpc.inference.ModelStreamInfer(md);
    call.on('data', (m: any) => streamed.push(m));
    call.on('end', resolve);
    call.on('error', reject);
    for (let i = 0; i < 5; i++) call.write({ ...req, id: `s${i}` });
    call.end();
  });
  assert.equal(streamed.length, 5);
  assert.ok(streamed.every((m) => m.error_message === '' && m.infer_response.parameters.experiment_variant.string_param === alice), JSON.stringify(streamed.map((m) => m.error_message || m.infer_response.parameters)));

  // A pipeline step and a BLS call carry the caller's header to the experiment they call.
  for (let i = 0; i < 5; i++) {
    assert.equal((await infer('greet_pipe', 10, { 'x-user': 'alice' })).y, 10 + OFFSET[alice]!);
    const viaScript = await infer('greet_caller', 20, { 'x-user': 'alice' });
    assert.equal(viaScript.parameters.via, alice);
    assert.equal(viaScript.y, 20 + OFFSET[alice]!);
  }
});

test('/metrics counts requests per variant and the mirror copies', async () => {
  const metrics = await startMetricsServer(s.server, { port: 0, host: '127.0.0.1', config: {} });
  try {
    const before = { a: successes('greet_a'), b: successes('greet_b') };
    for (let i = 0; i < 10; i++) await infer('greet', i);
    await until(() => successes('greet_shadow') >= successes('greet'));
    const text = await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
    const value = (line: RegExp) => Number(line.exec(text)?.[1] ?? NaN);
    const a = value(/^tributary_experiment_requests_total\{experiment="greet",variant="greet_a"\} (\d+)$/m);
    const b = value(/^tributary_experiment_requests_total\{experiment="greet",variant="greet_b"\} (\d+)$/m);
    assert.ok(a > 0 && b > 0, text);
    // The listener joined after the earlier tests: it counts what it saw, as the variants did.
    assert.equal(a + b, 10);
    assert.equal(a, successes('greet_a') - before.a);
    assert.equal(b, successes('greet_b') - before.b);
    assert.equal(value(/^tributary_experiment_mirror_total\{experiment="greet",outcome="sent"\} (\d+)$/m), 10);
  } finally {
    await metrics.close();
  }
});

test("the experiment's metadata and config are its variants' common interface, over HTTP and gRPC", async () => {
  const meta = (await (await fetch(`${s.base}/v2/models/greet`)).json()) as any;
  assert.deepEqual(meta, { name: 'greet', versions: ['1'], platform: 'experiment', inputs: [{ name: 'X', datatype: 'FP32', shape: [-1, 1] }], outputs: [{ name: 'Y', datatype: 'FP32', shape: [-1, 1] }] });
  const config = (await (await fetch(`${s.base}/v2/models/greet/config`)).json()) as any;
  assert.equal(config.max_batch_size, 8);
  assert.deepEqual(config.experiment.variants, [{ model: 'greet_a', weight: 50 }, { model: 'greet_b', weight: 50 }]);
  const grpc = await s.grpc.call('ModelConfig', { name: 'greet' });
  assert.equal(grpc.config.platform, 'experiment');
  assert.deepEqual(grpc.config.input.map((i: any) => [i.name, i.data_type, i.dims.map(Number)]), [['X', 'TYPE_FP32', [1]]]);
  const streamed = (await (await fetch(`${s.base}/v2/models/stream/config`)).json()) as any;
  assert.equal(streamed.model_transaction_policy.decoupled, true, 'decoupled like its variants');
});

test('a decoupled experiment streams its variant unchanged, over SSE and a gRPC stream', async () => {
  const res = await fetch(`${s.base}/v2/models/stream/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [3] }] }),
  });
  assert.equal(res.status, 200);
  const events = (await res.text()).split('\n\n').filter((b) => b.startsWith('data: ')).map((b) => JSON.parse(b.slice(6)));
  assert.equal(events.length, 3);
  const variant = events[0].parameters.experiment_variant as string;
  const base = variant === 'stream_a' ? 0 : 10;
  assert.deepEqual(events.map((e) => e.outputs[0].data[0]), [base, base + 1, base + 2]);
  assert.ok(events.every((e) => e.model_name === 'stream' && e.parameters.experiment_variant === variant));

  const got: any[] = [];
  await new Promise<void>((resolve, reject) => {
    const call = s.grpc.inference.ModelStreamInfer();
    call.on('data', (m: any) => got.push(m));
    call.on('end', resolve);
    call.on('error', reject);
    call.write({ model_name: 'stream', id: 'q', inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.from(Int32Array.of(4).buffer)] });
    call.end();
  });
  assert.ok(got.every((m) => m.error_message === ''), JSON.stringify(got.map((m) => m.error_message)));
  assert.equal(got.length, 4);
  const v = got[0].infer_response.parameters.experiment_variant.string_param as string;
  const b = v === 'stream_a' ? 0 : 10;
  assert.deepEqual(got.map((m) => Buffer.from(m.infer_response.raw_output_contents[0]).readInt32LE(0)), [b, b + 1, b + 2, b + 3]);
});
