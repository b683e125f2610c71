import { test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { tensorToBytes, tensorFromBytes, type DataType } from '../../../src/tensor/index.js';
import { tensorToContents } from '../../../src/protocol/grpc/index.js';
import { ALL_DATATYPES, sampleTensor } from './datatype-samples.js';
import { startHarness, until } from './harness.js';

const raw = (dt: DataType) => {
  const t = sampleTensor('IN', dt);
  return { t, input: { name: `INPUT_${dt}`, datatype: dt, shape: t.shape }, bytes: Buffer.from(tensorToBytes(t)) };
};

test('ModelInfer: every datatype round-trips through raw contents', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const all = ALL_DATATYPES.map(raw);
  const res = await h.client.call('ModelInfer', {
    model_name: 'echo', id: 'req-1',
    inputs: all.map((a) => a.input),
    raw_input_contents: all.map((a) => a.bytes),
  });
  assert.equal(res.id, 'req-1');
  assert.equal(res.model_name, 'echo');
  assert.equal(res.model_version, '1');
  assert.equal(res.outputs.length, ALL_DATATYPES.length);
  assert.equal(res.raw_output_contents.length, ALL_DATATYPES.length);
  ALL_DATATYPES.forEach((dt, i) => {
    assert.equal(res.outputs[i].name, `OUTPUT_${dt}`);
    assert.equal(res.outputs[i].datatype, dt);
    assert.deepEqual(res.outputs[i].shape, all[i]!.t.shape.map(String));
    assert.deepEqual(Buffer.from(res.raw_output_contents[i]), all[i]!.bytes, dt);
  });
  // The server saw tensor views with the right values (not just matching bytes).
  const seen = h.fake.requests[0]!.inputs;
  assert.deepEqual([...(seen[ALL_DATATYPES.indexOf('INT64')]!.data as BigInt64Array)], [-(2n ** 63n), 9007199254740993n, 2n ** 63n - 1n]);
  assert.equal(new TextDecoder().decode((seen[ALL_DATATYPES.indexOf('BYTES')]!.data as Uint8Array[])[2]), 'wörld');
});

test('ModelInfer: typed contents for every datatype that has a field; FP16/BF16 are refused', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  for (const dt of ALL_DATATYPES) {
    const tensor = sampleTensor('IN', dt);
    const req = { model_name: 'echo', inputs: [{ name: 'INPUT0', datatype: dt, shape: tensor.shape, contents: dt === 'FP16' || dt === 'BF16' ? { uint_contents: [1, 2] } : tensorToContents(tensor) }] };
    if (dt === 'FP16' || dt === 'BF16') {
      const e = await h.client.call('ModelInfer', req).catch((err) => err);
      assert.equal(e.code, status.INVALID_ARGUMENT, dt);
      assert.match(e.details, new RegExp(`^unexpected explicit tensor data for input tensor 'INPUT0' for model 'echo' of type 'UINT32', expected datatype '${dt}'; ${dt} data must be sent in raw_input_contents`));
      continue;
    }
    const res = await h.client.call('ModelInfer', req);
    // Outputs come back raw, as Triton answers.
    const back = tensorFromBytes('OUTPUT0', dt, res.outputs[0].shape.map(Number), res.raw_output_contents[0]);
    assert.deepEqual(Buffer.from(tensorToBytes(back)), Buffer.from(tensorToBytes(tensor)), dt);
  }
});

test('ModelInfer: typed contents in the wrong field and count mismatches, in Triton\'s words naming model and tensor', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const wrong = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'X', datatype: 'INT32', shape: [2], contents: { fp32_contents: [1, 2] } }] }).catch((e) => e);
  assert.equal(wrong.code, status.INVALID_ARGUMENT);
  assert.equal(wrong.details, "unexpected explicit tensor data for input tensor 'X' for model 'echo' of type 'FP32', expected datatype 'INT32'; INT32 data goes in int_contents, not fp32_contents");
  const count = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'X', datatype: 'INT32', shape: [3], contents: { int_contents: [1, 2] } }] }).catch((e) => e);
  assert.match(count.details, /^input byte size mismatch for input 'X' for model 'echo'\. Expected 12, got 8; INT32 \[3\] has 3 elements but int_contents has 2$/);
  const fewer = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'S', datatype: 'BYTES', shape: [1, 16], contents: { bytes_contents: Array(14).fill(Buffer.from('a')) } }] }).catch((e) => e);
  assert.match(fewer.details, /^expected 16 string elements for inference input 'S' for model 'echo', got 14/);
  const more = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'S', datatype: 'BYTES', shape: [1, 16], contents: { bytes_contents: Array(18).fill(Buffer.from('a')) } }] }).catch((e) => e);
  assert.match(more.details, /^unexpected number of string elements 18 for inference input 'S' for model 'echo', expecting 16/);
  const size = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'X', datatype: 'FP32', shape: [3] }], raw_input_contents: [Buffer.alloc(8)] }).catch((e) => e);
  assert.match(size.details, /^input byte size mismatch for input 'X' for model 'echo'\. Expected 12, got 8; FP32 \[3\] is 3 elements x 4 bytes$/);
  const n = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'X', datatype: 'FP32', shape: [1] }], raw_input_contents: [Buffer.alloc(4), Buffer.alloc(4)] }).catch((e) => e);
  assert.match(n.details, /expected 1 entries in raw_input_contents .* got 2/);
  const mixed = await h.client.call('ModelInfer', {
    model_name: 'echo',
    inputs: [{ name: 'A', datatype: 'FP32', shape: [1] }, { name: 'B', datatype: 'FP32', shape: [1], contents: { fp32_contents: [1] } }],
    raw_input_contents: [Buffer.alloc(4)],
  }).catch((e) => e);
  assert.match(mixed.details, /contents field must not be specified when using raw_input_contents for 'B' for model 'echo'/);
  const dtype = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'X', datatype: 'FP8', shape: [1] }], raw_input_contents: [Buffer.alloc(1)] }).catch((e) => e);
  assert.match(dtype.details, /^invalid datatype for input X; 'FP8' is not a datatype .*; model 'echo'$/);
  const nodata = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'X', datatype: 'FP32', shape: [1] }] }).catch((e) => e);
  assert.match(nodata.details, /^unable to find data for input tensor 'X' for model 'echo' in request\.; /);
  assert.equal(h.fake.requests.length, 0, 'bad requests never reach the server');
});

test('ModelInfer: reserved parameters become request fields; others pass through; requested outputs filter', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const a = raw('FP32');
  const b = raw('INT32');
  const res = await h.client.call('ModelInfer', {
    model_name: 'echo', model_version: '1',
    parameters: {
      sequence_id: { uint64_param: '18446744073709551615' }, sequence_start: { bool_param: true }, sequence_end: { bool_param: false },
      priority: { int64_param: 2 }, timeout: { int64_param: 1500 }, custom: { string_param: 'x' }, ratio: { double_param: 0.5 },
      triton_enable_empty_final_response: { bool_param: true },
    },
    inputs: [{ ...a.input, name: 'INPUT0' }, { ...b.input, name: 'INPUT1' }],
    outputs: [{ name: 'OUTPUT1', parameters: { classification: { int64_param: 2 }, binary_data: { bool_param: true } } }],
    raw_input_contents: [a.bytes, b.bytes],
  }, );
  const req = h.fake.requests[0]!;
  assert.equal(req.version, '1');
  assert.deepEqual(req.sequence, { id: 18446744073709551615n, start: true, end: false });
  assert.equal(req.priority, 2);
  assert.equal(req.timeoutUs, 1500);
  assert.deepEqual(req.parameters, { custom: 'x', ratio: 0.5 });
  assert.deepEqual(req.outputs, [{ name: 'OUTPUT1', parameters: { classification: 2 } }]);
  assert.deepEqual(res.outputs.map((o: any) => o.name), ['OUTPUT1']);
  assert.deepEqual(Buffer.from(res.raw_output_contents[0]), b.bytes);
  assert.equal(res.parameters.echoed.int64_param, '2');

  await h.client.call('ModelInfer', { model_name: 'echo', parameters: { sequence_id: { string_param: 'conv-7' }, sequence_end: { bool_param: true } }, inputs: [] });
  assert.deepEqual(h.fake.requests[1]!.sequence, { id: 'conv-7', start: false, end: true });

  const bad = await h.client.call('ModelInfer', { model_name: 'echo', parameters: { priority: { string_param: 'high' } }, inputs: [] }).catch((e) => e);
  assert.equal(bad.code, status.INVALID_ARGUMENT);
  assert.match(bad.details, /'priority' must be a non-negative integer/);
});

test('ModelInfer: errors map through the status table', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const inputs = [{ name: 'IN', datatype: 'INT32', shape: [1] }];
  const raw_input_contents = [Buffer.alloc(4)];
  const dec = await h.client.call('ModelInfer', { model_name: 'repeat', inputs, raw_input_contents }).catch((e) => e);
  assert.equal(dec.code, status.UNIMPLEMENTED);
  assert.match(dec.details, /ModelInfer RPC doesn't support models with decoupled transaction policy \(model 'repeat'\)/);
  const fail = await h.client.call('ModelInfer', { model_name: 'fail', inputs, raw_input_contents }).catch((e) => e);
  assert.equal(fail.code, status.INTERNAL);
  assert.equal(fail.details, "model 'fail': boom");
  const unknown = await h.client.call('ModelInfer', { model_name: 'ghost', inputs, raw_input_contents }).catch((e) => e);
  assert.equal(unknown.code, status.NOT_FOUND);
});

test('ModelInfer: cancelling the call cancels the request', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const call = h.client.inference.ModelInfer({ model_name: 'hang', inputs: [] }, () => {});
  await until(() => h.fake.requests.length === 1);
  assert.equal(h.fake.cancelled, 0);
  call.cancel();
  await until(() => h.fake.cancelled === 1);
});

test('ModelInfer: a client deadline becomes the request deadline', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const before = performance.now();
  await new Promise((resolve) => h.client.inference.ModelInfer({ model_name: 'echo', inputs: [] }, { deadline: Date.now() + 5000 }, resolve));
  const d = h.fake.requests[0]!.deadline!;
  assert.ok(d > before + 4000 && d < performance.now() + 5000, `deadline ${d - before} ms ahead`);
});

test('ModelInfer: large messages pass the raised default limit (48 MiB input)', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const bytes = Buffer.alloc(48 << 20);
  for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i & 0xff;
  const res = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'IN', datatype: 'UINT8', shape: [bytes.length] }], raw_input_contents: [bytes] });
  assert.equal(res.raw_output_contents[0].length, bytes.length);
  assert.ok(Buffer.from(res.raw_output_contents[0]).equals(bytes));
});

test('ModelInfer: maxInputBytes bounds the request size', async (t) => {
  const h = await startHarness({ maxInputBytes: 1024 });
  t.after(() => h.close());
  const e = await h.client.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'IN', datatype: 'UINT8', shape: [4096] }], raw_input_contents: [Buffer.alloc(4096)] }).catch((err) => err);
  assert.equal(e.code, status.RESOURCE_EXHAUSTED);
});
