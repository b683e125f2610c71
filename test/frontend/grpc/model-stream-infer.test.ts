import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, until } from './harness.js';

const int32 = (n: number) => Buffer.from(Int32Array.of(n).buffer);
const repeatReq = (id: string, n: number, extra: object = {}) => ({
  model_name: 'repeat', id, inputs: [{ name: 'IN', datatype: 'INT32', shape: [1] }], raw_input_contents: [int32(n)], ...extra,
});
const final = (m: any) => m.infer_response.parameters.triton_final_response?.bool_param;
const outValue = (m: any) => Buffer.from(m.infer_response.raw_output_contents[0]).readInt32LE(0);

test('stream: decoupled responses arrive as they come, many requests in flight, final flag on each', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const call = h.client.inference.ModelStreamInfer();
  const got: any[] = [];
  call.on('data', (m: any) => got.push(m));
  const ended = new Promise((resolve) => call.on('end', resolve));
  call.write(repeatReq('a', 3));
  call.write(repeatReq('b', 2, { parameters: { triton_enable_empty_final_response: { bool_param: true } } }));
  call.write({ model_name: 'echo', id: 'c', inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1] }], raw_input_contents: [int32(42)] });
  call.end(); // half-close: the server finishes the in-flight requests, then ends the stream
  await ended;

  const byId = (id: string) => got.filter((m) => m.infer_response.id === id);
  assert.ok(got.every((m) => m.error_message === ''));
  const a = byId('a');
  assert.deepEqual(a.map(outValue), [0, 1, 2]);
  assert.deepEqual(a.map(final), [false, false, false], 'no empty final response unless asked');
  const b = byId('b');
  assert.equal(b.length, 3);
  assert.deepEqual(b.slice(0, 2).map(outValue), [0, 1]);
  assert.equal(final(b[2]), true);
  assert.deepEqual(b[2].infer_response.outputs, []);
  assert.equal(b[2].infer_response.model_name, 'repeat');
  const c = byId('c');
  assert.equal(c.length, 1);
  assert.equal(final(c[0]), true, 'a non-decoupled model answers once, marked final');
  assert.equal(outValue(c[0]), 42);
  // Responses interleave: the echo answer did not wait for the decoupled streams.
  assert.ok(got.indexOf(c[0]) < got.indexOf(a[2]));
});

test('stream: an error fails one request with error_message and the stream carries on', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const call = h.client.inference.ModelStreamInfer();
  const got: any[] = [];
  call.on('data', (m: any) => got.push(m));
  call.write({ model_name: 'fail', id: 'x', inputs: [] });
  call.write({ model_name: 'echo', id: 'bad', inputs: [{ name: 'IN', datatype: 'FP32', shape: [2] }], raw_input_contents: [Buffer.alloc(3)] });
  call.write({ model_name: 'ghost', id: 'g', inputs: [] });
  await until(() => got.length === 3);
  call.write({ model_name: 'echo', id: 'ok', inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1] }], raw_input_contents: [int32(7)] });
  await until(() => got.length === 4);
  call.end();
  const err = (id: string) => got.find((m) => m.infer_response.id === id)!.error_message;
  assert.equal(err('x'), "model 'fail': boom");
  assert.match(err('bad'), /^input byte size mismatch for input 'IN' for model 'echo'\. Expected 8, got 3/);
  assert.match(err('g'), /unknown model: 'ghost'/);
  assert.equal(outValue(got.find((m) => m.infer_response.id === 'ok')), 7);
});

test('stream: cancelling the stream cancels every in-flight request', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const call = h.client.inference.ModelStreamInfer();
  call.on('error', () => {});
  const got: any[] = [];
  call.on('data', (m: any) => got.push(m));
  call.write({ model_name: 'hang', id: 'h1', inputs: [] });
  call.write({ model_name: 'hang', id: 'h2', inputs: [] });
  call.write(repeatReq('r', 1_000_000));
  await until(() => h.fake.requests.length === 3 && got.length >= 2);
  assert.equal(h.fake.cancelled, 0);
  call.cancel();
  await until(() => h.fake.cancelled === 3);
});

test('stream: a decoupled model that ends without a final response still gets the empty final when asked', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const call = h.client.inference.ModelStreamInfer();
  const got: any[] = [];
  call.on('data', (m: any) => got.push(m));
  const ended = new Promise((resolve) => call.on('end', resolve));
  call.write(repeatReq('z', 0, { parameters: { triton_enable_empty_final_response: { bool_param: true } } }));
  call.end();
  await ended;
  assert.equal(got.length, 1);
  assert.equal(final(got[0]), true);
  assert.equal(got[0].infer_response.id, 'z');
});
