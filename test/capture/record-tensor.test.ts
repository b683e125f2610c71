/**
 * Tensors in capture records: copied when taken (the source buffers may be reused), summarised
 * past the record's byte budget or when redacted (shape, datatype, SHA-256 of the wire bytes), and
 * written as JSON that reads back to the same tensor for every datatype.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { recordTensorJson, resolveRefs, snapshotTensors, tensorOfRecord, isOmitted, type RecordTensor, type TakenData, type WrittenData } from '../../src/capture/record-tensor.js';
import { parseJsonExact } from '../../src/protocol/index.js';
import { createTensor, tensorFromBytes, tensorToBytes, type Tensor } from '../../src/tensor/index.js';

const roundTrip = (t: Tensor) => tensorOfRecord(parseJsonExact(recordTensorJson(snapshotTensors([t], { left: 1 << 20 }, new Set())[0]!)) as RecordTensor)!;

test('a snapshot is a copy: changing the source buffer afterwards does not change the record', () => {
  const data = new Float32Array([1, 2, 3]);
  const bytes = new Uint8Array([104, 105]);
  const snap = snapshotTensors([createTensor('F', 'FP32', [3], data), createTensor('B', 'BYTES', [1], [bytes])], { left: 1000 }, new Set());
  data[0] = 99;
  bytes[0] = 0;
  const back = snap.map((t) => tensorOfRecord(JSON.parse(recordTensorJson(t)) as RecordTensor)!);
  assert.deepEqual(Array.from(back[0]!.data as Float32Array), [1, 2, 3]);
  assert.deepEqual(Array.from((back[1]!.data as Uint8Array[])[0]!), [104, 105]);
});

test('data shared by two records of a request is taken once, written once, and read back into both', () => {
  const taken = new Map<object, TakenData>();
  const t = createTensor('OUT', 'FP32', [2], [1, 2]);
  const [a] = snapshotTensors([t], { left: 100 }, new Set(), taken);
  const [b] = snapshotTensors([{ ...t, name: 'IN' }], { left: 100 }, new Set(), taken);
  assert.equal(taken.size, 1);
  const written: WrittenData = { refs: new Map(), next: 0 };
  const first = recordTensorJson(a!, written);
  const second = recordTensorJson(b!, written);
  assert.equal(first, '{"name":"OUT","datatype":"FP32","shape":[2],"ref":0,"data_b64":"AACAPwAAAEA="}');
  assert.equal(second, '{"name":"IN","datatype":"FP32","shape":[2],"ref":0}');
  const read = [JSON.parse(second) as RecordTensor, JSON.parse(first) as RecordTensor];
  resolveRefs(read);
  assert.deepEqual(Array.from(tensorOfRecord(read[0]!)!.data as Float32Array), [1, 2]);
  // A reference whose carrier was not kept has no data: not replayable, never made up.
  const lost = [JSON.parse(second) as RecordTensor];
  resolveRefs(lost);
  assert.equal(tensorOfRecord(lost[0]!), undefined);
});

test('past the byte budget, and for redacted names, a tensor is kept as shape, datatype and the SHA-256 of its wire bytes', () => {
  const small = createTensor('SMALL', 'FP32', [2], [1, 2]);
  const big = createTensor('BIG', 'FP32', [4], [1, 2, 3, 4]);
  const secret = createTensor('SECRET', 'BYTES', [1], ['hunter2']);
  const budget = { left: 12 };
  const snap = snapshotTensors([small, big, secret], budget, new Set(['SECRET']));
  assert.ok(!isOmitted(snap[0]!));
  assert.equal(budget.left, 4);
  const sha = (t: Tensor) => createHash('sha256').update(tensorToBytes(t)).digest('hex');
  assert.deepEqual(snap[1], { name: 'BIG', datatype: 'FP32', shape: [4], omitted: 'max-bytes', bytes: 16, sha256: sha(big) });
  assert.deepEqual(snap[2], { name: 'SECRET', datatype: 'BYTES', shape: [1], omitted: 'redacted', bytes: 11, sha256: sha(secret) });
  const json = recordTensorJson(snap[2]!);
  assert.ok(!json.includes('hunter2'));
  assert.equal(tensorOfRecord(JSON.parse(json) as RecordTensor), undefined);
});

test('a buffer moved to a worker thread is recorded as moved, not read', () => {
  const buf = new ArrayBuffer(8);
  const t = createTensor('X', 'FP32', [2], new Float32Array(buf));
  structuredClone(buf, { transfer: [buf] });
  assert.deepEqual(snapshotTensors([t], { left: 100 }, new Set())[0], { name: 'X', datatype: 'FP32', shape: [2], omitted: 'moved', bytes: 0 });
});

test('every datatype reads back as it was written: big INT64, non-UTF-8 BYTES, FP16, NaN', () => {
  const cases: Tensor[] = [
    createTensor('I64', 'INT64', [2], [2n ** 60n + 1n, -5n]),
    createTensor('U64', 'UINT64', [1], [2n ** 64n - 1n]),
    createTensor('B', 'BYTES', [2], [new Uint8Array([0xff, 0x00, 0x80]), new TextEncoder().encode('text')]),
    tensorFromBytes('H', 'FP16', [2], new Uint8Array([0x00, 0x3c, 0x00, 0xc0])),
    createTensor('F', 'FP32', [3], [1.5, NaN, -0]),
    createTensor('BOOL', 'BOOL', [2], [true, false]),
    createTensor('I8', 'INT8', [2], [-128, 127]),
  ];
  for (const t of cases) {
    const back = roundTrip(t);
    assert.equal(back.datatype, t.datatype);
    assert.deepEqual(back.shape, t.shape);
    assert.deepEqual(Buffer.from(tensorToBytes(back)), Buffer.from(tensorToBytes(t)), t.name);
  }
  const line = recordTensorJson(snapshotTensors([cases[2]!], { left: 100 }, new Set())[0]!);
  assert.ok(Buffer.from(line).toString('utf8') === line && line.includes('{"b64":"/wCA"}'), 'non-UTF-8 bytes are base64, the line stays UTF-8');
});
