/**
 * The queue between requests and sinks never waits: past its record or byte bound a record is
 * dropped and counted, and what it took is handed to the sinks later, off the caller's turn.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CaptureQueue } from '../../src/capture/capture-queue.js';
import type { CapturedRecord } from '../../src/capture/index.js';

const record = (i: number, bytes = 10): CapturedRecord => ({
  capture: `c${i}`, requestId: `r${i}`, record: 0, parent: undefined, kind: 'request', step: undefined, model: 'm', version: '1',
  time: 0, startMs: 0, durationMs: 1, inputs: [], outputs: undefined, responses: undefined, responsesDropped: 0,
  parameters: undefined, requestedOutputs: undefined, error: undefined, cancelled: false, sampled: true, bytes,
});

test('a full queue drops and counts instead of waiting; the sinks get the rest on a later turn', async () => {
  const got: string[] = [];
  const q = new CaptureQueue({ records: 3, bytes: 1000 }, (batch) => got.push(...batch.map((r) => r.requestId)));
  for (let i = 0; i < 10; i++) q.push(record(i));
  assert.equal(got.length, 0, 'nothing is written on the pushing turn');
  assert.deepEqual(q.counts, { captured: 3, written: {}, dropped: { queue: 7 } });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['r0', 'r1', 'r2']);
  q.push(record(10));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['r0', 'r1', 'r2', 'r10'], 'room again once drained');
});

test('the byte bound counts the tensor bytes records hold', () => {
  const q = new CaptureQueue({ records: 100, bytes: 25 }, () => undefined);
  q.push(record(0, 10));
  q.push(record(1, 10));
  q.push(record(2, 10));
  q.push(record(3, 5));
  assert.equal(q.counts.captured, 3);
  assert.deepEqual(q.counts.dropped, { queue: 1 });
});

test('a long backlog is handed over in bounded batches, and close() hands over the rest at once', async () => {
  const batches: number[] = [];
  const q = new CaptureQueue({ records: 1000, bytes: 1e9 }, (batch) => batches.push(batch.length));
  for (let i = 0; i < 600; i++) q.push(record(i));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(batches, [256]);
  q.close();
  assert.deepEqual(batches, [256, 256, 88]);
  q.push(record(1));
  assert.equal(q.counts.dropped.queue, 1, 'a closed queue takes nothing');
});

test('a sink that throws loses its batch, counted, and the queue goes on', async () => {
  let calls = 0;
  const q = new CaptureQueue({ records: 10, bytes: 1000 }, () => { calls++; throw new Error('boom'); });
  q.push(record(0));
  q.push(record(1));
  await new Promise((r) => setImmediate(r));
  assert.equal(calls, 1);
  assert.deepEqual(q.counts.dropped, { error: 2 });
});
