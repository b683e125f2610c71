/**
 * Refusals carry Triton's key phrase first (core infer_request.cc, model_lifecycle.cc), with our
 * detail after it, alike over HTTP and gRPC, so clients that match on Triton's words keep working.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { setLogSink } from '../../../src/logger.js';
import { startWireServers, type WireServers } from '../../helpers/wire-servers.js';
import type { TestClient } from '../grpc/grpc-client.js';

const SIMPLE = [
  'name: "simple"', 'backend: "identity"', 'max_batch_size: 8',
  'input [ { name: "A" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "B" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "C" data_type: TYPE_FP32 dims: [ 4 ] optional: true } ]',
  'output [ { name: "OA" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "OB" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "OC" data_type: TYPE_FP32 dims: [ 4 ] } ]', '',
].join('\n');
/** The identity backend refuses an input without its output: this model fails to load. */
const BROKEN = [
  'name: "broken"', 'backend: "identity"', 'max_batch_size: 0',
  'input [ { name: "A" data_type: TYPE_FP32 dims: [ 4 ] } ]', '',
].join('\n');

let servers: WireServers;
let base: string;
let grpc: TestClient;

before(async () => {
  setLogSink(() => {}); // the broken model's load failure is logged; the assertions are on the answers
  servers = await startWireServers({ 'simple/config.pbtxt': SIMPLE, 'simple/1/.keep': '', 'broken/config.pbtxt': BROKEN, 'broken/1/.keep': '' });
  ({ base, grpc } = servers);
});
after(() => servers.close());

interface In { name: string; datatype?: string; shape?: number[] }
const four = (name: string, rows = 1, datatype = 'FP32'): In => ({ name, datatype, shape: [rows, 4] });

/** One request over both transports: the HTTP status and message, and the gRPC code and message. */
async function refuse(model: string, inputs: In[], outputs: string[] = [], version = '') {
  const data = (t: In) => Array((t.shape ?? [0]).reduce((a, b) => a * b, 1)).fill(1);
  const body = { inputs: inputs.map((t) => ({ ...t, data: data(t) })), ...(outputs.length ? { outputs: outputs.map((name) => ({ name })) } : {}) };
  const path = `/v2/models/${model}${version ? `/versions/${version}` : ''}/infer`;
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const http = { status: res.status, message: (await res.json() as { error: string }).error };
  const e = await grpc.call('ModelInfer', {
    model_name: model, model_version: version,
    inputs: inputs.map((t) => ({ ...t, contents: t.datatype === 'INT32' ? { int_contents: data(t) } : { fp32_contents: data(t) } })),
    outputs: outputs.map((name) => ({ name })),
  }).then(() => assert.fail('ModelInfer succeeded'), (err) => err);
  return { http, grpc: { code: e.code as number, message: e.details as string } };
}

async function check(phrase: RegExp, httpStatus: number, grpcCode: number, ...args: Parameters<typeof refuse>) {
  const r = await refuse(...args);
  assert.equal(r.http.status, httpStatus, r.http.message);
  assert.match(r.http.message, phrase);
  assert.equal(r.grpc.code, grpcCode, r.grpc.message);
  assert.match(r.grpc.message, phrase);
}

test('unknown and unready models', async () => {
  await check(/^Request for unknown model: 'nope' is not found/, 404, status.NOT_FOUND, 'nope', [four('A')]);
  await check(/^Request for unknown model: 'simple' version 7 is not found/, 404, status.NOT_FOUND, 'simple', [four('A')], [], '7');
  await check(/^Request for unknown model: 'broken' has no available versions; state UNAVAILABLE: .*identity/, 404, status.NOT_FOUND, 'broken', [four('A')]);
  await check(/^Request for unknown model: 'broken' version 1 is not at ready state; state UNAVAILABLE/, 503, status.UNAVAILABLE, 'broken', [four('A')], [], '1');
});

test('inputs and outputs the model does not have, or lacks', async () => {
  await check(/^unexpected inference input 'X' for model 'simple'/, 400, status.INVALID_ARGUMENT, 'simple', [four('A'), four('B'), four('X')]);
  await check(/^expected number of inputs between 2 and 3 but got 1 inputs for model 'simple'\. Got input\(s\) \['A'\], but missing required input\(s\) \['B'\]\. Please provide all required input\(s\)\.$/,
    400, status.INVALID_ARGUMENT, 'simple', [four('A')]);
  await check(/^unexpected inference output 'NOPE' for model 'simple'/, 400, status.INVALID_ARGUMENT, 'simple', [four('A'), four('B')], ['NOPE']);
  await check(/^input 'A' already exists in request/, 400, status.INVALID_ARGUMENT, 'simple', [four('A'), four('A'), four('B')]);
});

test('datatype, shape and batch size', async () => {
  await check(/^inference input 'B' data-type is 'INT32', but model 'simple' expects 'FP32'$/, 400, status.INVALID_ARGUMENT, 'simple', [four('A'), four('B', 1, 'INT32')]);
  await check(/^unexpected shape for input 'B' for model 'simple'\. Expected \[-1,4\], got \[1,3\]\. NOTE: Setting a non-zero max_batch_size in the model config requires a batch dimension to be prepended to each input shape\. .* See the model configuration docs for more info on max_batch_size\.$/, 400, status.INVALID_ARGUMENT,
    'simple', [four('A'), { name: 'B', datatype: 'FP32', shape: [1, 3] }]);
  await check(/^inference request batch-size must be <= 8 for 'simple'; got 9$/, 400, status.INVALID_ARGUMENT, 'simple', [four('A', 9), four('B', 9)]);
  await check(/^input 'B' batch size does not match other inputs for 'simple'; it has 2 rows, the other inputs 1$/, 400, status.INVALID_ARGUMENT, 'simple', [four('A', 1), four('B', 2)]);
  await check(/^input 'A' has no shape but model requires batch dimension for 'simple'$/, 400, status.INVALID_ARGUMENT, 'simple', [{ name: 'A', datatype: 'FP32', shape: [] }, four('B')]);
});
