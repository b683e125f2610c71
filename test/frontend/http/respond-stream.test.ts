/**
 * respondUnary and respondStream with sources that answer synchronously, inside subscribe(): the
 * paths that must end the reply and stop the source before subscribe() has returned its
 * subscription (reading it there was a ReferenceError, and the reply was never sent). Such a
 * source runs on until subscribe() returns; what it sends meanwhile is ignored.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyReply } from 'fastify';
import { Observable } from 'rxjs';
import { Errors } from '../../../src/errors.js';
import { respondStream, respondUnary } from '../../../src/frontend/http/respond-stream.js';
import { StreamBudget, StreamBuffer } from '../../../src/frontend/stream/index.js';
import type { InferenceResponse } from '../../../src/inference/index.js';
import { createTensor } from '../../../src/tensor/index.js';

const response = (i: number, size = 1): InferenceResponse => ({
  model: 'm', version: '1', final: false, outputs: [createTensor('OUT', 'INT32', [size], new Int32Array(size).fill(i))],
});

/** Emits `count` responses synchronously in subscribe(), then completes; records its teardown. */
function eager(count: number, size = 1): { source: Observable<InferenceResponse>; state: { tornDown: boolean } } {
  const state = { tornDown: false };
  const source = new Observable<InferenceResponse>((sub) => {
    for (let i = 0; i < count; i++) sub.next(response(i, size));
    sub.complete();
    return () => { state.tornDown = true; };
  });
  return { source, state };
}

function app(handler: (reply: FastifyReply) => FastifyReply) {
  const a = Fastify();
  a.post('/x', (_req, reply) => handler(reply));
  return a;
}

const encodeJson = (r: InferenceResponse) => JSON.stringify({ model_name: r.model, outputs: r.outputs.map((t) => ({ name: t.name, data: Array.from(t.data as Int32Array) })) });

test('respondUnary: a second response emitted inside subscribe() fails the request and stops the source', async () => {
  const { source, state } = eager(5);
  const a = app((reply) => respondUnary(reply, 'm', source, () => assert.fail('not one response'), () => Errors.tooManyResponses('m')));
  const res = await a.inject({ method: 'POST', url: '/x' });
  assert.equal(res.statusCode, 500, 'fastify\'s own error handler here (the server\'s maps the error to 400)');
  assert.match(res.json().message, /model 'm' sent more than one response/);
  assert.equal(state.tornDown, true);
  await a.close();
});

test('respondStream: an encoding error on a response emitted inside subscribe() is the reply, and the source stops', async () => {
  const { source, state } = eager(3);
  const budget = new StreamBudget();
  const a = app((reply) => respondStream(reply, source, () => { throw Errors.invalidArg('cannot encode'); }, { endEvent: true, draining: () => false, buffer: new StreamBuffer(budget, 'sse') }));
  const res = await a.inject({ method: 'POST', url: '/x' });
  assert.match(res.json().message, /cannot encode/);
  assert.equal(state.tornDown, true);
  assert.equal(budget.bytes, 0);
  await a.close();
});

test('respondStream: a stream filled inside subscribe() ends with an error event at its bound, and the source stops', async () => {
  const { source, state } = eager(10_000, 1024);
  const budget = new StreamBudget({ streamBytes: 256 * 1024, totalBytes: 1024 * 1024 });
  const a = app((reply) => respondStream(reply, source, encodeJson, { endEvent: true, draining: () => false, buffer: new StreamBuffer(budget, 'sse') }));
  const res = await a.inject({ method: 'POST', url: '/x' });
  assert.equal(res.statusCode, 200);
  const events = res.body.split('\n\n').filter(Boolean);
  const last = JSON.parse(events.at(-1)!.slice('data: '.length)) as { error: string };
  assert.match(last.error, /model 'm': the stream's client is not taking its responses \(\d+ bytes waiting, bound 262144, --stream-buffer-bytes\)/);
  // 2 to 5 KiB an event: the bound holds some 80 of them.
  assert.ok(events.length > 20 && events.length < 300, `${events.length} events`);
  assert.equal(state.tornDown, true);
  assert.equal(budget.figures.sse.overflows, 1);
  assert.equal(budget.bytes, 0, 'the closed stream gave its account back');
  await a.close();
});
