import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DELIVER_COMPLETE, DELIVER_RESPONSE, type WireChildRequest } from '../../../backends/typescript/bls/wire.js';
import { ChildLink, ChildLog, REPLAY_MAX_BYTES, REPLAY_MAX_CHILDREN, sameChildRequest } from '../../../backends/typescript/child-replay.js';

const req = (over: Partial<WireChildRequest> = {}, data: ArrayBufferView = new Float32Array([1, 2])): WireChildRequest => ({
  model: 'm', inputs: [{ name: 'IN', datatype: 'FP32', shape: [2], data }], parent: -1, ...over,
});

describe('child-replay', () => {
  test('sameChildRequest: equal down to the input bytes; any field that differs tells them apart', () => {
    assert.ok(sameChildRequest(req(), req()));
    assert.ok(sameChildRequest(req({ parameters: { a: 1n, b: 'x' } }), req({ parameters: { a: 1n, b: 'x' } })));
    // The same bytes in a view of another buffer are the same input.
    const big = new Float32Array([9, 1, 2]);
    assert.ok(sameChildRequest(req(), req({}, big.subarray(1))));
    for (const other of [
      req({ model: 'n' }), req({ version: '2' }), req({ outputs: ['OUT'] }), req({ parameters: { a: 1 } }),
      req({ correlationId: 7n }), req({ sequenceStart: true }), req({ timeout: 5 }), req({ priority: 1 }), req({ parent: 0 }),
      req({}, new Float32Array([1, 3])), req({ inputs: [] }),
      req({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 2], data: new Float32Array([1, 2]) }] }),
      req({ inputs: [{ name: 'IN', datatype: 'INT32', shape: [2], data: new Float32Array([1, 2]) }] }),
    ]) assert.equal(sameChildRequest(req(), other), false, JSON.stringify(other, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
  });

  test('a recorded link keeps its deliveries and knows when it ended', () => {
    const log = new ChildLog();
    const link = new ChildLink(req(), 1, 2);
    log.add(link);
    const r = { outputs: [{ name: 'OUT', datatype: 'FP32', shape: [2], data: new Float32Array([1, 2]) }] };
    link.delivered([DELIVER_RESPONSE, r, false]);
    assert.equal(link.ended, false);
    link.delivered([DELIVER_COMPLETE, null, true]);
    assert.equal(link.ended, true);
    assert.equal(link.deliveries?.length, 2);
    assert.deepEqual(link.to, { callId: 1, childId: 2 });
  });

  test('past its bounds a log stops recording and lets go of what it kept', () => {
    const many = new ChildLog();
    for (let i = 0; i < REPLAY_MAX_CHILDREN; i++) many.add(new ChildLink(req(), 1, i));
    assert.equal(many.recording, true);
    const last = new ChildLink(req(), 1, REPLAY_MAX_CHILDREN);
    many.add(last);
    assert.equal(many.recording, false);
    assert.equal(many.links.length, 0);
    assert.equal(last.deliveries, undefined);

    const bytes = new ChildLog();
    const link = new ChildLink(req(), 1, 1);
    bytes.add(link);
    const half = { outputs: [{ name: 'OUT', datatype: 'UINT8', shape: [REPLAY_MAX_BYTES / 2], data: new Uint8Array(REPLAY_MAX_BYTES / 2) }] };
    link.delivered([DELIVER_RESPONSE, half, false]);
    assert.equal(bytes.recording, true);
    link.delivered([DELIVER_RESPONSE, half, false]);
    assert.equal(bytes.recording, false, 'the inputs and two halves are past the bound');
    assert.equal(link.deliveries, undefined);
    // A link keeps routing what arrives after its log stopped (to stays).
    assert.deepEqual(link.to, { callId: 1, childId: 1 });
  });
});
