/**
 * The drain gate (src/server/drain-gate.ts) on its own: front-end requests pass it on a sink, are
 * counted while in flight, refused while draining, and answered then stopped at the drain's
 * timeout. test/cli/serve-drain.test.ts covers the same through a real server and SIGTERM.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDrainGate } from '../../src/server/drain-gate.js';
import { Errors } from '../../src/errors.js';
import type { InferenceRequest, InferenceResponse, ResponseSink } from '../../src/inference/index.js';

const response: InferenceResponse = { model: 'm', version: '1', outputs: [], final: true };
const request = (extra: Partial<InferenceRequest> = {}): InferenceRequest => ({ model: 'm', inputs: [], ...extra });

function recordingSink() {
  const got: string[] = [];
  const sink: ResponseSink = {
    next: (r) => got.push(`next ${r.model}`),
    error: (e) => got.push(`error ${Errors.serverDraining.is(e) ? 'draining' : Errors.drainCancelled.is(e) ? 'cancelled' : (e as Error).message}`),
    complete: () => got.push('complete'),
  };
  return { got, sink };
}

/** A request the test ends by hand: its sink as the gate passed it, and whether it was stopped. */
function pending() {
  const p = { inner: undefined as ResponseSink | undefined, stopped: 0 };
  return { p, run: (s: ResponseSink) => { p.inner = s; return () => { p.stopped++; }; } };
}

test('an admitted request passes its responses on; once ended, its stop does nothing', () => {
  const gate = createDrainGate();
  const { got, sink } = recordingSink();
  const { p, run } = pending();
  const stop = gate.admit(request(), sink, run)!;
  p.inner!.next(response);
  p.inner!.complete();
  p.inner!.next(response); // a producer that misbehaves after the end reaches no one
  assert.deepEqual(got, ['next m', 'complete']);
  stop();
  assert.equal(p.stopped, 0);
});

test("a client's stop reaches the request once, and nothing reaches the sink afterwards", () => {
  const gate = createDrainGate();
  const { got, sink } = recordingSink();
  const { p, run } = pending();
  const stop = gate.admit(request(), sink, run)!;
  stop();
  stop();
  assert.equal(p.stopped, 1);
  p.inner!.error(new Error('late'));
  assert.deepEqual(got, []);
});

test('a request answered inside run gets no stop; one whose run throws gets the error', () => {
  const gate = createDrainGate();
  const a = recordingSink();
  assert.equal(gate.admit(request(), a.sink, (s) => { s.next(response); s.complete(); return () => assert.fail('not to be kept'); }), undefined);
  assert.deepEqual(a.got, ['next m', 'complete']);
  const b = recordingSink();
  assert.equal(gate.admit(request(), b.sink, () => { throw new Error('boom'); }), undefined);
  assert.deepEqual(b.got, ['error boom']);
});

test('draining: new requests are refused, a sequence already started continues; the drain waits for the one in flight', async () => {
  const gate = createDrainGate();
  const first = pending();
  const a = recordingSink();
  gate.admit(request(), a.sink, first.run);
  const drained = gate.drain(5000);
  assert.equal(gate.draining, true);
  const b = recordingSink();
  assert.equal(gate.admit(request(), b.sink, () => assert.fail('refused requests do not run')), undefined);
  assert.deepEqual(b.got, ['error draining']);
  const c = recordingSink();
  const continued = pending();
  gate.admit(request({ sequence: { id: 7n, start: false, end: true } }), c.sink, continued.run);
  continued.p.inner!.complete();
  first.p.inner!.next(response);
  first.p.inner!.complete();
  assert.deepEqual(await drained, { inFlight: 1, finished: 2, cancelled: 0 });
  assert.deepEqual(a.got, ['next m', 'complete']);
});

test("at the drain's timeout a request still running is answered TRB_DRAIN_CANCELLED, then stopped", async () => {
  const gate = createDrainGate();
  const { p, run } = pending();
  const { got, sink } = recordingSink();
  gate.admit(request(), sink, run);
  assert.deepEqual(await gate.drain(20), { inFlight: 1, finished: 0, cancelled: 1 });
  assert.deepEqual(got, ['error cancelled']);
  assert.equal(p.stopped, 1);
  p.inner!.complete();
  assert.deepEqual(got, ['error cancelled'], 'the late end reaches no one');
});
