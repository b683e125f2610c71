/**
 * 64-bit integers over gRPC keep every digit, as over HTTP JSON: int64_contents / uint64_contents
 * in and raw contents out, sequence IDs as int64_param or uint64_param, and the refusals of a shape
 * dimension, a shared-memory offset or a sequence ID print the value the client sent.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { SEQ_CONFIG } from '../../helpers/model-configs.js';
import { startWireServers, type WireServers } from '../../helpers/wire-servers.js';
import type { TestClient } from '../grpc/grpc-client.js';

const INTS = [
  'name: "ints"', 'backend: "identity"', 'max_batch_size: 0',
  'input [ { name: "IN_INT64" data_type: TYPE_INT64 dims: [ -1 ] }, { name: "IN_UINT64" data_type: TYPE_UINT64 dims: [ -1 ] } ]',
  'output [ { name: "OUT_INT64" data_type: TYPE_INT64 dims: [ -1 ] }, { name: "OUT_UINT64" data_type: TYPE_UINT64 dims: [ -1 ] } ]', '',
].join('\n');

const P60_1 = '1152921504606846977'; // 2^60 + 1: a double rounds it to 2^60
const INT64_MIN = '-9223372036854775808';
const INT64_MAX = '9223372036854775807';
const UINT64_MAX = '18446744073709551615';

let servers: WireServers;
let grpc: TestClient;

before(async () => {
  servers = await startWireServers({ 'ints/config.pbtxt': INTS, 'ints/1/.keep': '', 'seq/config.pbtxt': SEQ_CONFIG, 'seq/1/.keep': '' }, false);
  grpc = servers.grpc;
});
after(() => servers.close());

const refused = (req: object) => grpc.call('ModelInfer', req).then(() => assert.fail('ModelInfer succeeded'), (e) => e);
const int64s = (raw: Buffer, unsigned: boolean) => {
  const b = Buffer.from(raw);
  return Array.from(unsigned ? new BigUint64Array(b.buffer, b.byteOffset, b.length / 8) : new BigInt64Array(b.buffer, b.byteOffset, b.length / 8), String);
};

test('int64_contents and uint64_contents come back exact in raw_output_contents', async () => {
  const res = await grpc.call('ModelInfer', {
    model_name: 'ints',
    inputs: [
      { name: 'IN_INT64', datatype: 'INT64', shape: [3], contents: { int64_contents: [P60_1, INT64_MIN, INT64_MAX] } },
      { name: 'IN_UINT64', datatype: 'UINT64', shape: [2], contents: { uint64_contents: [UINT64_MAX, P60_1] } },
    ],
  });
  const byName = new Map<string, number>(res.outputs.map((o: { name: string }, i: number) => [o.name, i]));
  assert.deepEqual(int64s(res.raw_output_contents[byName.get('OUT_INT64')!], false), [P60_1, INT64_MIN, INT64_MAX]);
  assert.deepEqual(int64s(res.raw_output_contents[byName.get('OUT_UINT64')!], true), [UINT64_MAX, P60_1]);
});

test('sequence IDs past 2^53 are exact as int64_param and uint64_param; out of range they are refused with their digits', async () => {
  const req = (id: object, flags: object) => ({
    model_name: 'seq', parameters: { sequence_id: id, ...flags },
    inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1, 1], contents: { int_contents: [7] } }],
  });
  const start = { sequence_start: { bool_param: true } };
  await grpc.call('ModelInfer', req({ int64_param: P60_1 }, start));
  // 2^60 is another sequence: were the ID rounded, this would continue the one above.
  const other = await refused(req({ int64_param: '1152921504606846976' }, {}));
  assert.equal(other.code, status.INVALID_ARGUMENT);
  assert.match(other.details, /^inference request for sequence 1152921504606846976 to model '[^']+' must specify the START flag/);
  // The same ID given as uint64_param continues it.
  await grpc.call('ModelInfer', req({ uint64_param: P60_1 }, { sequence_end: { bool_param: true } }));
  await grpc.call('ModelInfer', req({ uint64_param: UINT64_MAX }, { ...start, sequence_end: { bool_param: true } }));

  const negative = await refused(req({ int64_param: '-1152921504606846977' }, start));
  assert.equal(negative.code, status.INVALID_ARGUMENT);
  assert.match(negative.details, /'sequence_id' must be a non-negative integer below 2\^64, got -1152921504606846977/);
});

test('a shape dimension or a shared-memory offset past 2^53 is refused with its digits', async () => {
  const dim = await refused({ model_name: 'ints', inputs: [{ name: 'IN_INT64', datatype: 'INT64', shape: [P60_1], contents: { int64_contents: [1] } }] });
  assert.equal(dim.code, status.INVALID_ARGUMENT);
  assert.match(dim.details, new RegExp(`invalid dimension ${P60_1} in shape`));
  const offset = await refused({
    model_name: 'ints',
    inputs: [{
      name: 'IN_INT64', datatype: 'INT64', shape: [1],
      parameters: { shared_memory_region: { string_param: 'r' }, shared_memory_byte_size: { int64_param: 8 }, shared_memory_offset: { uint64_param: UINT64_MAX } },
    }],
  });
  assert.equal(offset.code, status.INVALID_ARGUMENT);
  assert.match(offset.details, new RegExp(`'shared_memory_offset' must be a non-negative integer below 2\\^53, got ${UINT64_MAX}`));
});
