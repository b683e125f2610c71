/**
 * Sequences under `tributary serve --replicas 2`: each new connection is accepted by either
 * replica, so a sequence sent over a fresh connection per request reaches both; the replica that
 * does not own it (hash of the sequence id) relays it to the owner. Each answer's `tributary-replica`
 * header is the owner's pid, and the accumulator's running totals prove the state stayed whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client, credentials, loadPackageDefinition, type ServiceError } from '@grpc/grpc-js';
import { LOOPBACK, ROOT, startServe, type Served } from '../helpers/tributary-process.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { loadProtos } from '../../src/frontend/grpc/index.js';

const FIXTURE = join(ROOT, 'test/fixtures/sequence/accumulator_ts');
const MODEL = 'accumulator_ts';

interface Answer { status: number; pid: number; body: string }

/** One inference on its own connection; `header` sends the client SDK's routing header too. */
function infer(port: number, id: number | string, value: number, flags: { start?: boolean; end?: boolean }, header = false): Promise<Answer> {
  const body = JSON.stringify({
    parameters: { sequence_id: id, sequence_start: flags.start ?? false, sequence_end: flags.end ?? false },
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], data: [value] }],
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(header ? { 'tributary-sequence-id': encodeURIComponent(String(id)) } : {}) };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: `/v2/models/${MODEL}/infer`, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, pid: Number(res.headers['tributary-replica']), body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const total = (a: Answer) => (JSON.parse(a.body) as { outputs: { data: number[] }[] }).outputs[0]!.data[0];

type Ctor = new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => Client & Record<string, (...a: unknown[]) => unknown>;
const Service = (loadPackageDefinition(loadProtos()) as unknown as { inference: { GRPCInferenceService: Ctor } }).inference.GRPCInferenceService;

function grpcMessage(id: number | string, value: number, flags: { start?: boolean; end?: boolean }, requestId = '') {
  const buf = Buffer.alloc(4);
  buf.writeFloatLE(value);
  return {
    model_name: MODEL, id: requestId,
    parameters: {
      sequence_id: typeof id === 'number' ? { int64_param: String(id) } : { string_param: id },
      sequence_start: { bool_param: flags.start ?? false }, sequence_end: { bool_param: flags.end ?? false },
    },
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: ['1', '1'] }],
    raw_input_contents: [buf],
  };
}

interface GrpcAnswer { raw_output_contents: Buffer[]; id: string }

/** One ModelInfer over its own connection (a local subchannel pool: grpc-js shares connections between clients otherwise). */
async function grpcInfer(port: number, id: number | string, value: number, flags: { start?: boolean; end?: boolean }): Promise<number> {
  const client = new Service(`127.0.0.1:${port}`, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
  try {
    const res = await new Promise<GrpcAnswer>((resolve, reject) => {
      client.ModelInfer!(grpcMessage(id, value, flags), (err: ServiceError | null, r: GrpcAnswer) => (err ? reject(err) : resolve(r)));
    });
    return res.raw_output_contents[0]!.readFloatLE(0);
  } finally {
    client.close();
  }
}

/** Values 1, 2, 3, 4 give running totals 1, 3, 6, 10. */
const VALUES = [1, 2, 3, 4];
const TOTALS = [1, 3, 6, 10];
const flagsAt = (step: number) => ({ start: step === 0, end: step === VALUES.length - 1 });

async function waitForLog(s: Served, re: RegExp, ms = 90_000): Promise<void> {
  const until = Date.now() + ms;
  while (!re.test(s.log())) {
    if (Date.now() > until) throw new Error(`no ${re} in the log within ${ms} ms:\n${s.log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('serve --replicas 2: sequences stay whole across connections, and a dead owner answers UNAVAILABLE', { timeout: 240_000 }, async (t) => {
  const repo = tempRepo({
    [`${MODEL}/config.pbtxt`]: readFileSync(join(FIXTURE, 'config.pbtxt'), 'utf8'),
    [`${MODEL}/1/model.ts`]: readFileSync(join(FIXTURE, '1/model.ts'), 'utf8'),
  });
  const s = await startServe([...LOOPBACK, '--model-repository', repo.dir, '--replicas', '2'], 120_000);
  try {
    for (const header of [false, true]) {
      await t.test(`HTTP, a new connection per request, ${header ? 'with' : 'without'} the routing header`, async () => {
        // 25 connections, each accepted by either replica: the requests of a sequence reach both.
        const ids: (number | string)[] = header ? [101, 102, 103, 104, 'user-7'] : [1, 2, 3, 'session-a', 'session-b'];
        const owners = new Map<number | string, Set<number>>();
        for (let step = 0; step < VALUES.length; step++) {
          for (const id of ids) {
            const a = await infer(s.http, id, VALUES[step]!, flagsAt(step), header);
            assert.equal(a.status, 200, `sequence ${id}, step ${step}: ${a.body}`);
            assert.equal(total(a), TOTALS[step], `sequence ${id}, step ${step}`);
            owners.set(id, (owners.get(id) ?? new Set()).add(a.pid));
          }
        }
        // One replica answered for each sequence (its owner), and both replicas own some.
        for (const [id, pids] of owners) assert.equal(pids.size, 1, `sequence ${id} answered by ${[...pids].join(', ')}`);
        assert.equal(new Set([...owners.values()].map((p) => [...p][0])).size, 2);
      });
    }

    await t.test('gRPC ModelInfer, a new connection per request', async () => {
      for (let step = 0; step < VALUES.length; step++) {
        for (const id of [21, 22, 23, 24, 'grpc-x']) {
          assert.equal(await grpcInfer(s.grpc, id, VALUES[step]!, flagsAt(step)), TOTALS[step], `sequence ${id}, step ${step}`);
        }
      }
    });

    await t.test('gRPC ModelStreamInfer: sequences of both owners interleaved on one stream, answered in order', async () => {
      const client = new Service(`127.0.0.1:${s.grpc}`, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
      try {
        const ids = [31, 32, 33, 34];
        const stream = (client.ModelStreamInfer as () => NodeJS.ReadWriteStream & { end(): void; write(m: unknown): boolean })();
        const answers = new Map<string, number[]>();
        const done = new Promise<void>((resolve, reject) => {
          stream.on('data', (m: { error_message: string; infer_response: GrpcAnswer }) => {
            if (m.error_message !== '') reject(new Error(m.error_message));
            const id = m.infer_response.id.split('/')[0]!;
            answers.set(id, [...(answers.get(id) ?? []), m.infer_response.raw_output_contents[0]!.readFloatLE(0)]);
          });
          stream.on('end', resolve);
          stream.on('error', reject);
        });
        // Started over HTTP, so that each sequence's state is with its owner, whichever replica holds the stream.
        const owners = new Set<number>();
        for (const id of ids) {
          const a = await infer(s.http, id, VALUES[0]!, flagsAt(0));
          assert.equal(a.status, 200, a.body);
          owners.add(a.pid);
        }
        assert.equal(owners.size, 2);
        for (let step = 1; step < VALUES.length; step++) {
          for (const id of ids) stream.write(grpcMessage(id, VALUES[step]!, flagsAt(step), `${id}/${step}`));
        }
        stream.end();
        await done;
        for (const id of ids) assert.deepEqual(answers.get(String(id)), TOTALS.slice(1), `sequence ${id}`);
      } finally {
        client.close();
      }
    });

    await t.test('the owner killed mid-sequence: its sequences get UNAVAILABLE, the others go on', async () => {
      // Two sequences with different owners, started.
      const start = new Map<number, number>();
      for (let id = 41; start.size < 2; id++) {
        const a = await infer(s.http, id, 1, { start: true });
        assert.equal(a.status, 200, a.body);
        if (![...start.values()].includes(a.pid)) start.set(id, a.pid);
      }
      const [first, second] = [...start.entries()];
      const [lostId, victim] = first!;
      const [keptId] = second!;
      process.kill(victim!, 'SIGKILL');
      await waitForLog(s, new RegExp(`pid ${victim}\\) exited unexpectedly`));

      for (let i = 0; i < 2; i++) {
        const a = await infer(s.http, lostId!, 2, {});
        assert.equal(a.status, 503, a.body);
        assert.match(JSON.parse(a.body).error as string, new RegExp(`^sequence '${lostId}': its replica \\d is not serving`));
      }
      await assert.rejects(grpcInfer(s.grpc, lostId!, 2, {}), (e: ServiceError) => {
        assert.equal(e.code, 14);
        assert.match(e.details, new RegExp(`sequence '${lostId}': its replica \\d is not serving`));
        return true;
      });
      for (const [step, value] of [[1, 2], [2, 3]] as const) {
        const a = await infer(s.http, keptId!, value, {});
        assert.equal(a.status, 200, a.body);
        assert.equal(total(a), TOTALS[step]);
      }

      // The replacement takes the slot: the lost sequence starts again there.
      await waitForLog(s, /replica \d \(pid \d+\) is serving/);
      const again = await infer(s.http, lostId!, 5, { start: true });
      assert.equal(again.status, 200, again.body);
      assert.equal(total(again), 5);
      assert.notEqual(again.pid, victim);
    });
  } finally {
    await s.stop();
    repo.remove();
  }
});
