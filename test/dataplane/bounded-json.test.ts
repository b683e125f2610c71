/**
 * Inference bodies are decoded from JSON.parse's result and parsed exactly only when a decoder
 * needs every digit: the decoders are the real v2 and generate ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBoundedJsonBytes } from '../../src/dataplane/index.js';
import { decodeGenerateRequest, decodeInferRequest } from '../../src/protocol/index.js';
import { TributaryError } from '../../src/errors.js';

/** Decode `text` as an infer request, recording the `lossy` flag of every decoding pass. */
function decodeInfer(text: string) {
  const passes: boolean[] = [];
  const run = () => decodeBoundedJsonBytes(Buffer.from(text), 'inference request', (json, lossy) => {
    passes.push(lossy);
    return decodeInferRequest(json, { model: 'm', lossy });
  });
  return { run, passes };
}

const input = (datatype: string, shape: string, data: string, extra = '') =>
  `{"name":"X","datatype":"${datatype}","shape":${shape},"data":${data}${extra}}`;

test('a body with no integer past 2^53 is decoded once, from JSON.parse', () => {
  const d = decodeInfer(`{"parameters":{"sequence_id":9007199254740991,"k":0.5},"inputs":[${input('INT64', '[2]', '[9007199254740991,-9007199254740991]')}]}`);
  const { request } = d.run();
  assert.deepEqual(d.passes, [true]);
  assert.deepEqual([...(request.inputs[0]!.data as BigInt64Array)], [2n ** 53n - 1n, -(2n ** 53n - 1n)]);
  assert.equal(request.sequence?.id, 2n ** 53n - 1n);
  assert.equal(request.parameters?.k, 0.5);
});

test('INT64/UINT64 data, sequence IDs and parameters past 2^53 are decoded again from the exact parse', () => {
  const data = decodeInfer(`{"inputs":[${input('UINT64', '[2]', '[18446744073709551615,1152921504606846977]')}]}`);
  assert.deepEqual([...(data.run().request.inputs[0]!.data as BigUint64Array)], [2n ** 64n - 1n, 2n ** 60n + 1n]);
  assert.deepEqual(data.passes, [true, false]);

  const seq = decodeInfer(`{"parameters":{"sequence_id":1152921504606846977},"inputs":[${input('INT32', '[1]', '[1]')}]}`);
  assert.equal(seq.run().request.sequence?.id, 2n ** 60n + 1n);
  assert.deepEqual(seq.passes, [true, false]);

  const custom = decodeInfer(`{"inputs":[${input('INT32', '[1]', '[1]', ',"parameters":{"p":-1152921504606846977}')}],"parameters":{"q":1152921504606846977}}`);
  assert.equal(custom.run().request.parameters?.q, 2n ** 60n + 1n);
  assert.deepEqual(custom.passes, [true, false]);

  // A float literal past 2^53 is a float: the exact pass keeps it a number.
  const float = decodeInfer(`{"parameters":{"f":1e20},"inputs":[${input('FP64', '[1]', '[12345678901234567890]')}]}`);
  const r = float.run().request;
  assert.equal(r.parameters?.f, 1e20);
  assert.equal((r.inputs[0]!.data as Float64Array)[0], 12345678901234567890);
});

test('a refused body is decoded again from the exact parse, so the message prints every digit', () => {
  const refusal = (text: string): string => {
    const d = decodeInfer(text);
    const e = (() => { try { d.run(); } catch (err) { return err; } return assert.fail('decoded'); })();
    assert.ok(e instanceof TributaryError && e.code !== 'TRB_REQUEST_JSON_INEXACT', String(e));
    assert.deepEqual(d.passes, [true, false]);
    return e.message;
  };
  assert.match(refusal(`{"inputs":[${input('INT64', '[1152921504606846977]', '[1]')}]}`), /1152921504606846977/);
  assert.match(refusal(`{"inputs":[${input('INT32', '[1]', '[1152921504606846977]')}]}`), /1152921504606846977/);
  assert.match(refusal(`{"inputs":[${input('UINT64', '[1]', '[18446744073709551617]')}]}`), /18446744073709551617/);
  assert.match(refusal(`{"inputs":[${input('INT32', '[1]', '[1]', ',"parameters":{"shared_memory_region":"r","shared_memory_byte_size":4,"shared_memory_offset":1152921504606846977}')}]}`), /1152921504606846977|shared memory/);
  assert.match(refusal(`{"parameters":{"sequence_id":18446744073709551617},"inputs":[${input('INT32', '[1]', '[1]')}]}`), /18446744073709551617/);
});

test('the generate decoder is lazy the same way', () => {
  const passes: boolean[] = [];
  const req = decodeBoundedJsonBytes(Buffer.from('{"X":[1152921504606846977,2],"seed":1152921504606846977}'), 'generate request', (json, lossy) => {
    passes.push(lossy);
    return decodeGenerateRequest(json, { model: 'm', inputs: [{ name: 'X', datatype: 'INT64', shape: [-1] }], lossy });
  });
  assert.deepEqual(passes, [true, false]);
  assert.deepEqual([...(req.inputs[0]!.data as BigInt64Array)], [2n ** 60n + 1n, 2n]);
  assert.equal(req.parameters?.seed, 2n ** 60n + 1n);
});
