/**
 * A soak of ModelStreamInfer streams whose clients never read, with the default bounds: 20
 * streams of a script that awaits its sends and 5 of one that sends in a plain loop, 20,000 small
 * responses asked on each, held for a few seconds. What the process holds (heap and buffers, after
 * a collection) must grow by less than 100 MB and its peak RSS by less than 200 MB (RSS grew by
 * 430-480 MB, still rising, before streams were bounded; bounded, it grows by 20-120 MB, most of it
 * garbage not yet collected, more on Node 24 and on a loaded machine), and a cancel must give every
 * byte back and end every script.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startGrpcServer, type GrpcServerHandle } from '../../../src/frontend/grpc/index.js';
import { STREAM_DEFAULTS, StreamBudget } from '../../../src/frontend/stream/index.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { eventually, neverReadingStream, senderProgress, senderRepo, senderRequest } from '../../helpers/stream-senders.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { until } from './harness.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MB = 1e6;
const AWAITING = 20;
const LOOPING = 5;
const N = 20_000;

let repo: TempRepo;
let server: Server;
let grpc: GrpcServerHandle;
const budget = new StreamBudget();

before(async () => {
  repo = senderRepo();
  server = await createServer({ modelRepository: repo.dir });
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', streamBudget: budget });
});
after(async () => {
  await grpc.close();
  await server.close();
  repo.remove();
});

/** `until`, naming what it waited for and the account's figures when it gives up. */
const waitFor = (what: string, cond: () => boolean, ms: number) => until(cond, ms).catch(() => {
  throw new Error(`${what}: not within ${ms} ms (held ${budget.bytes} bytes, ${JSON.stringify(budget.figures.grpc)})`);
});

/** Requests failed: a cancelled or overflowed stream fails its request (a probe of senderProgress succeeds). */
const failed = (model: string) => server.modelStatistics(model).model_stats[0]!.inference_stats.fail.count;
const succeeded = (model: string) => server.modelStatistics(model).model_stats[0]!.inference_stats.success.count;

test(`${AWAITING + LOOPING} never-read streams of ${N} responses: under 100 MB held, all of it given back on cancel`, async () => {
  // Warm: both models have streamed once, so first-call costs are not counted.
  const warm = [neverReadingStream(grpc.port, senderRequest('await_sender', 100, 1)), neverReadingStream(grpc.port, senderRequest('loop_sender', 100, 1))];
  await waitFor('the warm-up streams end', () => succeeded('await_sender') === 1 && succeeded('loop_sender') === 1, 20_000);
  for (const w of warm) w.cancel();
  await waitFor('the warm-up account empties', () => budget.bytes === 0, 10_000);
  const progress0 = await senderProgress(server);
  gc();
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  const held = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const held0 = held();
  const before = { await: failed('await_sender'), loop: failed('loop_sender') };

  const streams = [
    ...Array.from({ length: AWAITING }, () => neverReadingStream(grpc.port, senderRequest('await_sender', N, 1))),
    ...Array.from({ length: LOOPING }, () => neverReadingStream(grpc.port, senderRequest('loop_sender', N, 1))),
  ];
  try {
    // Every awaiting script pauses; every looping one fills its stream and is failed at the bound.
    await waitFor('every awaiting stream pauses and every looping one overflows', () => budget.figures.grpc.paused >= AWAITING && budget.figures.grpc.overflows >= LOOPING, 30_000);
    let peak = 0;
    const end = Date.now() + 3000;
    while (Date.now() < end) {
      peak = Math.max(peak, process.memoryUsage().rss);
      assert.ok(budget.bytes <= (AWAITING + LOOPING) * STREAM_DEFAULTS.streamBytes, `${budget.bytes} bytes held`);
      await new Promise((r) => setTimeout(r, 100));
    }
    gc();
    const growth = held() - held0;
    const rssGrowth = peak - rss0;
    assert.ok(growth < 100 * MB, `heap and buffers grew by ${Math.round(growth / MB)} MB (peak RSS by ${Math.round(rssGrowth / MB)} MB)`);
    assert.ok(rssGrowth < 200 * MB, `peak RSS grew by ${Math.round(rssGrowth / MB)} MB (heap and buffers by ${Math.round(growth / MB)} MB)`);
    assert.equal(budget.figures.grpc.overflows, LOOPING, 'the awaiting scripts never overflowed');
    assert.equal(failed('await_sender'), before.await, 'the awaiting scripts are paused, not failed');
  } finally {
    for (const s of streams) s.cancel();
  }
  await waitFor('the cancel empties the account', () => budget.bytes === 0 && budget.figures.grpc.paused === 0, 20_000);
  await waitFor('every cancelled request ends', () => failed('await_sender') === before.await + AWAITING && failed('loop_sender') === before.loop + LOOPING, 20_000);
  let progress = progress0;
  await eventually(async () => (progress = await senderProgress(server)).stopped === progress0.stopped + AWAITING, 20_000)
    .catch(() => assert.fail(`${progress.stopped - progress0.stopped} of ${AWAITING} awaiting scripts stopped`));
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const kept = process.memoryUsage().heapUsed - heap0;
  assert.ok(kept < 20 * MB, `the heap kept ${Math.round(kept / MB)} MB after the cancel`);
});
