/**
 * The per-request policy every front end goes through (src/dataplane/edge.ts): header forwarding
 * and trace joining, decided in one place. The policy is a pure function of the request and the
 * caller's headers, so it is checked here on its own with the model's `infer` as a recording
 * function; test/frontend/header-forwarding.test.ts and test/trace/ cover the same over real servers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { of } from 'rxjs';
import { createEdge, type CallerHeaders } from '../../src/dataplane/edge.js';
import { compileHeaderPattern } from '../../src/protocol/index.js';
import { Errors } from '../../src/errors.js';
import type { InferenceRequest, InferenceResponse } from '../../src/inference/index.js';

const response: InferenceResponse = { model: 'm', version: '1', outputs: [], final: true };

function headersOf(record: Record<string, string | string[]>): CallerHeaders & { listed: number } {
  const h = {
    listed: 0,
    get: (name: string) => (typeof record[name] === 'string' ? record[name] : undefined),
    entries() {
      h.listed++;
      return Object.entries(record);
    },
  };
  return h;
}

function recording() {
  const seen: InferenceRequest[] = [];
  return { seen, infer: (r: InferenceRequest) => (seen.push(r), of(response)) };
}

test('without a forward pattern the headers are not listed and the parameters stay as they are', () => {
  const { seen, infer } = recording();
  const edge = createEdge(infer);
  const headers = headersOf({ 'x-user': 'alice' });
  const request: InferenceRequest = { model: 'm', inputs: [], parameters: { a: 1 } };
  edge.infer(request, headers);
  assert.equal(headers.listed, 0);
  assert.deepEqual(seen[0]!.parameters, { a: 1 });
});

test('matching headers become string parameters; the body keeps its own value of the same name', () => {
  const { seen, infer } = recording();
  const edge = createEdge(infer, { headerForwardPattern: compileHeaderPattern('f', 'x-.*') });
  const original = { 'x-team': 'body' };
  edge.infer({ model: 'm', inputs: [], parameters: original }, headersOf({ 'x-user': 'alice', 'x-team': 'header', other: 'no', 'x-list': ['a', 'b'] }));
  assert.deepEqual(seen[0]!.parameters, { 'x-team': 'body', 'x-user': 'alice', 'x-list': 'a, b' });
  assert.deepEqual(original, { 'x-team': 'body' }, 'the decoded parameters are not mutated');
});

test('a forwarded header named like a reserved parameter is refused before the model is called', () => {
  const { seen, infer } = recording();
  const edge = createEdge(infer, { headerForwardPattern: compileHeaderPattern('f', '.*') });
  assert.throws(() => edge.infer({ model: 'm', inputs: [] }, headersOf({ priority: '1' })), (e: unknown) => Errors.headerReserved.is(e));
  assert.equal(seen.length, 0);
});

test("a caller's traceparent is joined, and the served span's traceparent is read back when the answer is written", () => {
  const { seen, infer } = recording();
  const edge = createEdge(infer);
  const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const call = edge.infer({ model: 'm', inputs: [] }, headersOf({ traceparent: parent }));
  assert.equal(seen[0]!.traceContext?.parent, parent);
  assert.equal(call.traceparent(), undefined, 'not traced yet');
  // What the tracer does once the request's span exists (src/trace/otel-trace.ts).
  seen[0]!.traceContext!.traceparent = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
  assert.equal(call.traceparent(), '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01');
});

test('a request without a traceparent carries no trace context', async () => {
  const { seen, infer } = recording();
  const call = createEdge(infer).infer({ model: 'm', inputs: [] }, headersOf({}));
  assert.equal(seen[0]!.traceContext, undefined);
  assert.equal(call.traceparent(), undefined);
  const got: InferenceResponse[] = [];
  call.responses.subscribe((r) => got.push(r));
  assert.deepEqual(got, [response]);
});

/** A sink that records what reaches it. */
function recordingSink() {
  const got: string[] = [];
  return { got, sink: { next: (r: InferenceResponse) => got.push(`next ${r.model}`), error: (e: unknown) => got.push(`error ${(e as Error).message}`), complete: () => got.push('complete') } };
}

test('open applies the same policy as infer, and starts nothing until start', () => {
  const { seen, infer } = recording();
  const edge = createEdge(infer, { headerForwardPattern: compileHeaderPattern('f', 'x-.*') });
  const call = edge.open({ model: 'm', inputs: [] }, headersOf({ 'x-user': 'alice' }));
  assert.equal(seen.length, 0, 'not started');
  const { got, sink } = recordingSink();
  call.start(sink);
  assert.deepEqual(seen[0]!.parameters, { 'x-user': 'alice' });
  assert.deepEqual(got, ['next m', 'complete'], 'without a start of its own, the edge subscribes infer');
});

test("open refuses as infer does: a forwarded header named like a reserved parameter throws before start", () => {
  const { seen, infer } = recording();
  const edge = createEdge(infer, { headerForwardPattern: compileHeaderPattern('f', '.*') });
  assert.throws(() => edge.open({ model: 'm', inputs: [] }, headersOf({ priority: '1' })), (e: unknown) => Errors.headerReserved.is(e));
  assert.equal(seen.length, 0);
});

test("an open call started on the server's own start: its stop reaches the request, and its span is read from the call even when the answer came during start", () => {
  const { infer } = recording();
  const stopped: string[] = [];
  const started: InferenceRequest[] = [];
  const edge = createEdge(infer, {}, (request, sink) => {
    started.push(request);
    // What a tracer does once the span exists, then an answer at once (as a cache hit answers).
    request.traceContext!.traceparent = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
    sink.next(response);
    sink.complete();
    return () => stopped.push(request.model);
  });
  const call = edge.open({ model: 'm', inputs: [] }, headersOf({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }));
  const { got, sink } = recordingSink();
  let spanAtAnswer: string | undefined;
  const stop = call.start({ ...sink, complete: () => { spanAtAnswer = call.traceparent(); sink.complete(); } });
  assert.deepEqual(got, ['next m', 'complete']);
  assert.equal(spanAtAnswer, '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01');
  assert.equal(started.length, 1);
  stop();
  assert.deepEqual(stopped, ['m']);
});

test('a start that refuses at once (no stop) gives a stop that does nothing', () => {
  const { infer } = recording();
  const edge = createEdge(infer, {}, (_request, sink) => { sink.error(new Error('refused')); return undefined; });
  const { got, sink } = recordingSink();
  const stop = edge.open({ model: 'm', inputs: [] }, headersOf({})).start(sink);
  assert.deepEqual(got, ['error refused']);
  stop();
});
