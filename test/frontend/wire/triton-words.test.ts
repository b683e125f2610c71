/**
 * What a Triton client or test observes for the refusals Triton's own tests compare, end to end on
 * one real server over HTTP and gRPC: the status, and Triton's message first, verbatim (read in
 * its core's sequence_batch_scheduler.cc and model_repository_manager.cc, and its server's
 * http_server.cc and common.h), with our detail after "; ".
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { setLogSink } from '../../../src/logger.js';
import { SEQ_CONFIG } from '../../helpers/model-configs.js';
import { startWireServers, type WireServers } from '../../helpers/wire-servers.js';

const SIMPLE = [
  'name: "simple"', 'backend: "identity"', 'max_batch_size: 8',
  'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]',
  'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]', '',
].join('\n');
const LIMIT = 64 * 1024;

let s: WireServers;
before(async () => {
  setLogSink(() => {}); // refused loads are logged; the assertions are on the answers
  s = await startWireServers({
    'simple/config.pbtxt': SIMPLE, 'simple/1/.keep': '',
    'accumulate/config.pbtxt': SEQ_CONFIG.replace('name: "seq"', 'name: "accumulate"'), 'accumulate/1/.keep': '',
  }, { maxInputSize: LIMIT });
});
after(() => s.close());

const errorOf = async (res: Response) => (await res.json() as { error: string }).error;
const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(s.base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const grpcError = (method: string, req: unknown) =>
  s.grpc.call(method, req).then(() => assert.fail(`${method} succeeded`), (e) => e as { code: number; details: string });

test('a sequence request without START: 400 / INVALID_ARGUMENT in Triton\'s words', async () => {
  const words = "inference request for sequence 123 to model 'accumulate' must specify the START flag on the first request of the sequence";
  const res = await post('/v2/models/accumulate/infer', JSON.stringify({
    parameters: { sequence_id: 123 }, inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1, 1], data: [1] }],
  }));
  assert.equal(res.status, 400);
  assert.ok((await errorOf(res)).startsWith(words));
  const e = await grpcError('ModelInfer', {
    model_name: 'accumulate', parameters: { sequence_id: { int64_param: 123 } },
    inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1, 1], contents: { int_contents: [1] } }],
  });
  assert.equal(e.code, status.INVALID_ARGUMENT);
  assert.ok(e.details.startsWith(words), e.details);
  // A string id is named as it was sent.
  const named = await post('/v2/models/accumulate/infer', JSON.stringify({
    parameters: { sequence_id: 'abc' }, inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1, 1], data: [1] }],
  }));
  assert.ok((await errorOf(named)).startsWith("inference request for sequence abc to model 'accumulate' must specify the START flag"));
});

test('JSON nested 120 deep: 400 with Triton\'s limit and words', async () => {
  const deep = '['.repeat(120) + '1' + ']'.repeat(120);
  const res = await post('/v2/models/simple/infer', `{"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[1,4],"data":${deep}}]}`);
  assert.equal(res.status, 400);
  assert.match(await errorOf(res), /^JSON nesting depth exceeds maximum allowed limit \(100\)/);
  // 97 levels (the request object, then 96 arrays) are within the limit.
  const ok = await post('/v2/models/simple/infer', `{"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[1,4],"data":[[1,2,3,4]]}],"x":${'['.repeat(96)}${']'.repeat(96)}}`);
  assert.equal(ok.status, 200, await ok.clone().text());
});

test('a raw body past --http-max-input-size: 400 in Triton\'s words', async () => {
  const res = await post('/v2/models/simple/infer', Buffer.alloc(LIMIT + 16), {
    'content-type': 'application/octet-stream', 'inference-header-content-length': '0',
  });
  assert.equal(res.status, 400);
  assert.equal(await errorOf(res),
    `Raw input has a byte_size (${LIMIT + 16} bytes) that exceeds the maximum allowed value of ${LIMIT} bytes. Use --http-max-input-size to increase the limit.`);
});

test('a load whose file: key is refused: 400 / INVALID_ARGUMENT, Triton\'s "failed to load" first', async () => {
  const res = await post('/v2/repository/models/simple/load', JSON.stringify({ parameters: { config: '{}', 'file:../evil.onnx': 'AA==' } }));
  assert.equal(res.status, 400);
  assert.match(await errorOf(res), /^failed to load 'simple', failed to poll from model repository; /);
  const e = await grpcError('RepositoryModelLoad', {
    model_name: 'simple', parameters: { config: { string_param: '{}' }, 'file:../evil.onnx': { bytes_param: Buffer.from([0]) } },
  });
  assert.equal(e.code, status.INVALID_ARGUMENT);
  assert.match(e.details, /^failed to load 'simple', failed to poll from model repository; /);
  // The model already loaded is still served.
  const infer = await post('/v2/models/simple/infer', '{"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[1,4],"data":[1,2,3,4]}]}');
  assert.equal(infer.status, 200);
});

test('client shared memory off: CUDA status answers 200 [], system unregister 501 with Triton\'s message', async () => {
  const cuda = await fetch(`${s.base}/v2/cudasharedmemory/status`);
  assert.equal(cuda.status, 200);
  assert.deepEqual(await cuda.json(), []);
  const un = await post('/v2/systemsharedmemory/unregister', '');
  assert.equal(un.status, 501);
  assert.equal(await errorOf(un), "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.");
});

test('request parameters starting with triton_ are refused in Triton\'s words, which differ by front end', async () => {
  const res = await post('/v2/models/simple/infer', JSON.stringify({
    parameters: { triton_custom: 1 }, inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }],
  }));
  assert.equal(res.status, 400);
  assert.equal(await errorOf(res), "parameter keys starting with 'triton_' are reserved for Triton usage and should not be specified.; the request has 'triton_custom'");
  const e = await grpcError('ModelInfer', {
    model_name: 'simple', parameters: { triton_custom: { int64_param: 1 } },
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], contents: { fp32_contents: [1, 2, 3, 4] } }],
  });
  assert.equal(e.code, status.INVALID_ARGUMENT);
  assert.match(e.details, /^parameter keys starting with 'triton_' are reserved for Triton usage\. Only the following keys starting with 'triton_' are allowed: triton_enable_empty_final_response; /);
});

test('a reserved request parameter of the wrong type: Triton\'s words for each front end', async () => {
  const res = await post('/v2/models/simple/infer', JSON.stringify({
    parameters: { sequence_start: 'yes' }, inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }],
  }));
  assert.equal(res.status, 400);
  assert.match(await errorOf(res), /^Unable to parse 'sequence_start'; /);
  const input = { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], contents: { fp32_contents: [1, 2, 3, 4] } };
  const start = await grpcError('ModelInfer', { model_name: 'simple', parameters: { sequence_start: { int64_param: 1 } }, inputs: [input] });
  assert.equal(start.code, status.INVALID_ARGUMENT);
  assert.match(start.details, /^invalid value type for 'sequence_start' parameter, expected bool_param\.; /);
  const priority = await grpcError('ModelInfer', { model_name: 'simple', parameters: { priority: { int64_param: -1 } }, inputs: [input] });
  assert.match(priority.details, /^invalid value for 'priority', expected value >= 0\.; /);
});
