import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCRATCH_BYTES, Scratch } from '../../../../backends/typescript/bls/scratch.js';
import type { WireChildRequest, WireRequest, WireResponse } from '../../../../backends/typescript/bls/wire.js';

/** Two views of one shared buffer, as the host and the sandbox each hold one. */
function pair(bytes = SCRATCH_BYTES): [Scratch, Scratch, Uint8Array] {
  const sab = new SharedArrayBuffer(bytes);
  return [new Scratch(sab), new Scratch(sab), new Uint8Array(sab)];
}

test('a request batch crosses with every field, strings in UTF-8 and data copied', () => {
  const [host, sandbox] = pair();
  const words = new Uint8Array([5, 0, 0, 0, 104, 195, 169, 108, 108]);
  const body = new Float32Array([9, 1, 2.5, -4]);
  const reqs: WireRequest[] = [
    {
      id: 'req-é1', outputs: ['OUT', 'SCORES'], correlationId: 18446744073709551615n,
      parameters: { s: 'ünï', n: 1.5, t: true, f: false, big: -(2n ** 63n) },
      inputs: [
        { name: 'X', datatype: 'FP32', shape: [3], data: body.subarray(1) },
        { name: 'WORDS', datatype: 'BYTES', shape: [1], data: words },
        { name: 'I', datatype: 'INT64', shape: [1, 2], data: new BigInt64Array([-1n, 7n]) },
      ],
    },
    { id: '', outputs: [], parameters: {}, inputs: [], correlationId: 'session-a' },
    { id: 'plain', outputs: [], parameters: {}, inputs: [] },
  ];
  assert.equal(host.writeRequests(reqs), true);
  const got = sandbox.readRequests();
  assert.deepEqual(got[0]!.parameters, reqs[0]!.parameters);
  assert.deepEqual(got[0]!.outputs, ['OUT', 'SCORES']);
  assert.equal(got[0]!.id, 'req-é1');
  assert.equal(got[0]!.correlationId, 18446744073709551615n);
  assert.equal(got[1]!.correlationId, 'session-a');
  assert.equal('correlationId' in got[2]!, false, 'no correlation id, no property');
  const [x, w, i] = got[0]!.inputs;
  assert.ok(x && w && i);
  assert.ok(x.data instanceof Float32Array);
  assert.deepEqual([...(x.data as Float32Array)], [1, 2.5, -4]);
  assert.notEqual((x.data as Float32Array).buffer, body.buffer);
  assert.ok(!((x.data as Float32Array).buffer instanceof SharedArrayBuffer), 'decoded data must not alias the shared buffer');
  assert.deepEqual([...(w.data as Uint8Array)], [...words]);
  assert.deepEqual([...(i.data as BigInt64Array)], [-1n, 7n]);
  assert.deepEqual(i.shape, [1, 2]);
});

test('a completion is held until taken, and blocks other writes meanwhile', () => {
  const [host, sandbox] = pair();
  const rs: WireResponse[] = [{ outputs: [{ name: 'OUT', datatype: 'UINT8', shape: [2], data: new Uint8Array([1, 2]) }], parameters: { k: 'v' } }, { outputs: [] }];
  assert.equal(sandbox.writeCompletion(42, rs), true);
  assert.equal(host.held, true);
  assert.equal(sandbox.writeResponse({ outputs: [] }), false, 'a held completion must not be overwritten');
  const c = host.takeCompletion();
  assert.equal(c.callId, 42);
  assert.deepEqual(c.responses?.[0]!.parameters, { k: 'v' });
  assert.deepEqual([...(c.responses?.[0].outputs[0]!.data as Uint8Array)], [1, 2]);
  assert.equal(c.responses?.[1]!.parameters, undefined);
  assert.equal(host.held, false);
  assert.equal(sandbox.writeCompletion(43, null), true);
  assert.deepEqual(host.takeCompletion(), { callId: 43, responses: null });
});

test('a child request keeps its optional fields, and only those', () => {
  const [host, sandbox] = pair();
  const full: WireChildRequest = {
    model: 'ident', version: '2', parent: -1, outputs: ['OUT'], parameters: { a: 1 }, correlationId: 7n,
    sequenceStart: true, sequenceEnd: false, timeout: 1000, priority: 2,
    inputs: [{ name: 'IN', datatype: 'FP64', shape: [1], data: new Float64Array([0.25]) }],
  };
  assert.equal(sandbox.writeChildRequest(full), true);
  const got = host.readChildRequest();
  assert.deepEqual({ ...got, inputs: [] }, { ...full, inputs: [] });
  assert.deepEqual([...(got.inputs[0]!.data as Float64Array)], [0.25]);
  assert.equal(sandbox.writeChildRequest({ model: 'm', inputs: [], parent: 0 }), true);
  assert.deepEqual(host.readChildRequest(), { model: 'm', inputs: [], parent: 0 });
});

test('what the format cannot carry is refused (the clone lane takes it), nothing half-written counts', () => {
  const [host, sandbox] = pair(256);
  const t = (data: ArrayBufferView, datatype = 'FP32') => ({ name: 'T', datatype, shape: [1], data });
  assert.equal(host.writeResponse({ outputs: [t(new Float32Array(100))] }), false, 'larger than the buffer');
  assert.equal(sandbox.writeResponse({ outputs: [], error: { message: 'boom' } }), false, 'errors carry stacks');
  assert.equal(sandbox.writeResponse({ outputs: [t(new Float64Array(1))] }), false, 'data class does not match the datatype');
  assert.equal(sandbox.writeResponse({ outputs: [t(new Float32Array(1), 'FP8')] }), false, 'unknown datatype');
  assert.equal(sandbox.writeResponse({ outputs: [], parameters: { m: new Map() } as never }), false, 'non-primitive parameter');
  assert.equal(sandbox.writeResponse({ outputs: [], parameters: { big: 2n ** 64n } }), false, 'bigint beyond int64');
  assert.equal(sandbox.writeResponse({ outputs: [], parameters: JSON.parse('{"__proto__": 1}') }), false, '__proto__ key');
  assert.equal(sandbox.writeChildRequest({ model: 'm', inputs: [], parent: 0, timeout: '5' as never }), false, 'timeout not a number');
  assert.equal(sandbox.writeCompletion(1, [{ outputs: [], error: { message: 'x' } }]), false);
  assert.equal(host.held, false, 'a refused completion is not held');
});

test('garbage from the sandbox is a RangeError on the host, never an out-of-bounds read', () => {
  const [host, sandbox, bytes] = pair(256);
  assert.equal(sandbox.writeCompletion(1, [{ outputs: [{ name: 'T', datatype: 'FP32', shape: [1], data: new Float32Array(1) }] }]), true);
  const dv = new DataView(bytes.buffer);
  // callId (8) + count (4) + tensor count (4) + name length (4) + 'T' + code (4) + ndims (4) + dim (8) -> byte length
  dv.setUint32(8 + 8 + 4 + 4 + 4 + 1 + 4 + 4 + 8, 1_000_000, true);
  assert.throws(() => host.takeCompletion(), RangeError);
  assert.equal(sandbox.writeCompletion(1, [{ outputs: [] }]), true);
  dv.setUint32(8 + 8, 0x7fffffff, true); // response count
  assert.throws(() => host.takeCompletion(), RangeError);
  assert.equal(sandbox.writeCompletion(1, [{ outputs: [{ name: 'T', datatype: 'FP32', shape: [1], data: new Float32Array(1) }] }]), true);
  dv.setUint32(8 + 8 + 4 + 4 + 4 + 1, 99, true); // datatype code
  assert.throws(() => host.takeCompletion(), /datatype code 99/);
});
