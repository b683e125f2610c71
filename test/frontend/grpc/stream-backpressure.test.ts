/**
 * Backpressure on ModelStreamInfer, over a real server on loopback with real TypeScript models
 * (test/helpers/stream-senders.ts): a script that awaits its sends waits for its client, a stream
 * never holds more than its bound, a script that cannot wait fails its request at the bound, and a
 * cancelled stream gives everything back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGrpcServer, type GrpcServerHandle } from '../../../src/frontend/grpc/index.js';
import { StreamBudget } from '../../../src/frontend/stream/index.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { eventually, neverReadingStream, senderProgress, senderRepo, senderRequest, settledProgress } from '../../helpers/stream-senders.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { createTestClient, type TestClient } from './grpc-client.js';
import { until } from './harness.js';

const KIB = 1024;
const BOUND = 256 * KIB;
/** 1 KiB of tensor a response: a stream of 20,000 is 80 times its bound. */
const SIZE = 256;

const final = (m: any) => m.infer_response.parameters.triton_final_response?.bool_param === true;
const first = (m: any) => Buffer.from(m.infer_response.raw_output_contents[0]).readInt32LE(0);

describe('ModelStreamInfer backpressure', () => {
  let repo: TempRepo;
  let server: Server;
  let grpc: GrpcServerHandle;
  let client: TestClient;
  const budget = new StreamBudget({ streamBytes: BOUND, totalBytes: 64 * 1024 * KIB });
  const failures = (model: string) => server.modelStatistics(model).model_stats[0]!.inference_stats.fail.count;

  before(async () => {
    repo = senderRepo();
    server = await createServer({ modelRepository: repo.dir });
    grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', streamBudget: budget });
    client = createTestClient(grpc.port);
  });
  after(async () => {
    client.close();
    await grpc.close();
    await server.close();
    repo.remove();
  });

  /** Read one request's responses on a fresh stream to its final flag. */
  const readAll = (model: string, n: number) => new Promise<any[]>((resolve, reject) => {
    const call = client.inference.ModelStreamInfer();
    const got: any[] = [];
    call.on('data', (m: any) => {
      got.push(m);
      if (m.error_message || final(m)) { call.end(); resolve(got); }
    });
    call.on('error', reject);
    call.write({ ...senderRequest(model, n, SIZE), parameters: { triton_enable_empty_final_response: { bool_param: true } } });
  });

  test('a client that never reads: the script waits, the stream stays under its bound; a cancel frees it all and stops the script', async () => {
    const failed = failures('await_sender');
    const s = neverReadingStream(grpc.port, senderRequest('await_sender', 20_000, SIZE));
    await until(() => budget.figures.grpc.paused === 1, 15_000);
    // Paused, the script sends nothing more: the account stays where it stopped, under the bound.
    const p0 = await settledProgress(server);
    let peak = 0;
    const end = Date.now() + 500;
    while (Date.now() < end) {
      peak = Math.max(peak, budget.bytes);
      await new Promise((r) => setTimeout(r, 20));
    }
    const p1 = await senderProgress(server);
    assert.equal(p1.sent, p0.sent, 'the script waits');
    assert.ok(peak > BOUND / 8 && peak <= BOUND, `held ${peak} bytes`);
    assert.equal(budget.figures.grpc.overflows, 0, 'a script that waits never overflows');

    s.cancel();
    await until(() => budget.bytes === 0 && budget.figures.grpc.paused === 0, 5000);
    await until(() => failures('await_sender') === failed + 1, 5000);
    // The script's awaited send rejected: its loop ended, and it sends nothing more.
    await eventually(async () => (await senderProgress(server)).stopped === p1.stopped + 1);
    assert.equal((await senderProgress(server)).sent, p1.sent);
    const got = await readAll('await_sender', 3);
    assert.deepEqual(got.map((m) => m.error_message), ['', '', '', '']);
  });

  test('a reading client receives every response, in order, through many pauses', async () => {
    const pauses = budget.figures.grpc.pauses;
    const n = 3000;
    const got = await readAll('await_sender', n);
    assert.equal(got.length, n + 1, got.at(-1).error_message);
    assert.ok(got.every((m) => m.error_message === ''));
    assert.deepEqual(got.slice(0, n).map(first), Array.from({ length: n }, (_, i) => i));
    assert.equal(final(got[n]), true);
    assert.ok(budget.figures.grpc.pauses >= pauses);
    await until(() => budget.bytes === 0);
  });

  test('a script that cannot wait fails its request at the bound (TRB_STREAM_BUFFER_FULL); the stream carries on', async () => {
    const overflows = budget.figures.grpc.overflows;
    const call = client.inference.ModelStreamInfer();
    const got: any[] = [];
    call.on('data', (m: any) => got.push(m));
    call.pause(); // a client that stops reading: its HTTP/2 window fills, then the server's account
    call.write({ ...senderRequest('loop_sender', 20_000, SIZE), id: 'big' });
    await until(() => budget.figures.grpc.overflows === overflows + 1, 15_000);
    assert.ok(budget.bytes <= BOUND + SIZE * 4 + 1024, `held ${budget.bytes}`);
    call.resume();
    await until(() => got.some((m) => m.error_message !== ''), 10_000);
    const responses = got.filter((m) => m.error_message === '');
    const error = got.find((m) => m.error_message !== '')!;
    assert.match(error.error_message, /model 'loop_sender': the stream's client is not taking its responses \(\d+ bytes waiting, bound 262144, --stream-buffer-bytes\); the request was cancelled/);
    assert.equal(error.infer_response.id, 'big');
    assert.ok(responses.length > 0 && responses.length < 20_000);
    assert.deepEqual(responses.map(first), Array.from({ length: responses.length }, (_, i) => i), 'what went out came in order');
    // The same stream takes the next request.
    const before = got.length;
    call.write(senderRequest('await_sender', 2, SIZE, 'next'));
    await until(() => got.length === before + 2, 10_000);
    assert.deepEqual(got.slice(before).map((m) => [m.error_message, m.infer_response.id]), [['', 'next'], ['', 'next']]);
    call.end();
    await until(() => budget.bytes === 0);
  });

  test('a full stream reads no more requests: they wait in the client (HTTP/2 flow control), not in the server', async () => {
    // The pipeline over await_sender: no other test has sent it anything yet.
    const started = () => server.modelStatistics('relay').model_stats[0]!.inference_stats;
    const progress = await senderProgress(server);
    const s = neverReadingStream(grpc.port, senderRequest('await_sender', 20_000, SIZE));
    await until(() => budget.figures.grpc.paused === 1, 15_000);
    for (let i = 0; i < 3; i++) s.write(senderRequest('relay', 1, SIZE));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(started().success.count + started().fail.count, 0, 'the requests behind a full stream have not started');
    assert.equal(server.modelStatistics('relay').model_stats[0]!.inference_count, 0);
    s.cancel();
    await until(() => budget.bytes === 0, 5000);
    await eventually(async () => (await senderProgress(server)).stopped === progress.stopped + 1);
    assert.equal(server.modelStatistics('relay').model_stats[0]!.inference_count, 0, 'nor do they once the stream is cancelled');
  });

  test('a pipeline whose decoupled step is a script: the step waits for the pipeline\'s client', async () => {
    const failed = failures('await_sender');
    const s = neverReadingStream(grpc.port, senderRequest('relay', 20_000, SIZE));
    await until(() => budget.figures.grpc.paused === 1, 15_000);
    const p0 = await settledProgress(server);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await senderProgress(server)).sent, p0.sent, 'the step waits');
    assert.ok(budget.bytes <= BOUND, `held ${budget.bytes}`);
    assert.equal(budget.figures.grpc.overflows, 1, 'only the previous test\'s overflow');
    s.cancel();
    await until(() => budget.bytes === 0 && failures('await_sender') === failed + 1, 5000);
    await eventually(async () => (await senderProgress(server)).stopped === p0.stopped + 1);
  });
});
