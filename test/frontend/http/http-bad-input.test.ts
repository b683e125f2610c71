/**
 * Malformed requests against the real server: each gets the exact status and a message naming the
 * problem, and the server keeps serving afterwards.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from './test-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked field by field
const loose = (v: unknown): any => v;
let t: TestServer;
before(async () => { t = await startTestServer({ maxInputSize: 64 * 1024 }); });
after(async () => { await t.close(); });

const F16 = Array.from({ length: 16 }, (_, i) => i);
const input = (over: Record<string, unknown> = {}) => ({ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: F16, ...over });
const good = { inputs: [input()] };
const binHeader = (json: object) => Buffer.from(JSON.stringify(json));
function framed(json: object, bytes: number, headerLength?: number): { body: Buffer; headers: Record<string, string> } {
  const h = binHeader(json);
  return { body: Buffer.concat([h, Buffer.alloc(bytes)]), headers: { 'inference-header-content-length': String(headerLength ?? h.byteLength) } };
}

interface Case { name: string; method?: string; path?: string; body?: unknown; headers?: Record<string, string>; status: number; match: RegExp }
const INFER = '/v2/models/identity_fp32/infer';
const TYPES = '/v2/models/identity_types/infer';

const cases: Case[] = [
  { name: 'unknown model', path: '/v2/models/nope/infer', body: good, status: 404, match: /unknown model: 'nope'/ },
  { name: 'unknown version', path: '/v2/models/identity_fp32/versions/9/infer', body: good, status: 404, match: /version 9 is not found/ },
  { name: 'empty body', body: '', status: 400, match: /has an empty body/ },
  { name: 'invalid JSON', body: '{"inputs": [', status: 400, match: /failed to parse the inference request JSON/ },
  { name: 'JSON array body', body: '[]', status: 400, match: /must be a JSON object/ },
  { name: 'no inputs', body: {}, status: 400, match: /must have an 'inputs' array/ },
  { name: 'input not an object', body: { inputs: [5] }, status: 400, match: /input 0 must be an object/ },
  { name: 'input without name', body: { inputs: [{ datatype: 'FP32', shape: [1], data: [1] }] }, status: 400, match: /input 0 must have a non-empty string 'name'/ },
  { name: 'unknown datatype', body: { inputs: [input({ datatype: 'FLOAT' })] }, status: 400, match: /^invalid datatype for input INPUT0; 'FLOAT' is not a datatype .*; model 'identity_fp32'$/ },
  { name: 'missing shape', body: { inputs: [input({ shape: undefined })] }, status: 400, match: /tensor 'INPUT0': missing 'shape'/ },
  { name: 'negative shape', body: { inputs: [input({ shape: [-1, 16] })] }, status: 400, match: /^invalid shape for input 'INPUT0': shape \[-1,16\] contains one or more invalid dimensions/ },
  { name: 'no data', body: { inputs: [input({ data: undefined })] }, status: 400, match: /tensor 'INPUT0': no data/ },
  { name: 'element count vs shape', body: { inputs: [input({ data: F16.slice(1) })] }, status: 400, match: /^Failed to parse 'data' field: shape does not match true shape; input 'INPUT0' for model 'identity_fp32': shape \[1,16\] has 16 elements but 'data' has 15$/ },
  { name: 'string in FP32 data', body: { inputs: [input({ data: [...F16.slice(1), 'x'] })] }, status: 400, match: /FP32 element 15 must be a number/ },
  { name: 'datatype differs from config', body: { inputs: [input({ datatype: 'INT32' })] }, status: 400, match: /^inference input 'INPUT0' data-type is 'INT32', but model '[^']+' expects 'FP32'/ },
  { name: 'shape differs from config', body: { inputs: [input({ shape: [1, 8], data: F16.slice(8) })] }, status: 400, match: /^unexpected shape for input 'INPUT0' for model '[^']+'\. Expected \[-1,16\], got \[1,8\]/ },
  { name: 'batch too large', body: { inputs: [input({ shape: [9, 16], data: Array(144).fill(0) })] }, status: 400, match: /^inference request batch-size must be <= 8 for '[^']+'; got 9$/ },
  { name: 'unknown input', body: { inputs: [input({ name: 'X' })] }, status: 400, match: /unexpected inference input 'X'/ },
  { name: 'missing input', body: { inputs: [] }, status: 400, match: /^expected 1 inputs but got 0 inputs for model '[^']+'\. Got input\(s\) \[\], but missing required input\(s\) \['INPUT0'\]/ },
  { name: 'unknown requested output', body: { ...good, outputs: [{ name: 'NOPE' }] }, status: 400, match: /unexpected inference output 'NOPE'/ },
  { name: 'duplicate input', body: { inputs: [input(), input()] }, status: 400, match: /^input 'INPUT0' already exists in request/ },
  { name: 'numeric id', body: { ...good, id: 7 }, status: 400, match: /request 'id' must be a string/ },
  { name: 'negative priority', body: { ...good, parameters: { priority: -1 } }, status: 400, match: /'priority' must be a non-negative integer/ },
  { name: 'nested parameter', body: { ...good, parameters: { x: { y: 1 } } }, status: 400, match: /parameter 'x' must be a string, number or boolean/ },
  { name: 'non-integer header length', body: JSON.stringify(good), headers: { 'inference-header-content-length': 'abc' }, status: 400, match: /Inference-Header-Content-Length must be a non-negative integer/ },
  { name: 'header longer than body', ...fr(framed({ inputs: [] }, 0, 999)), status: 400, match: /Inference-Header-Content-Length 999 is longer than the \d+-byte request body/ },
  { name: 'binary_data_size past the body', ...fr(framed({ inputs: [input({ data: undefined, parameters: { binary_data_size: 64 } })] }, 32)), status: 400, match: /binary_data_size 64 exceeds the 32 bytes/ },
  { name: 'binary size vs datatype and shape', ...fr(framed({ inputs: [input({ data: undefined, parameters: { binary_data_size: 60 } })] }, 60)), status: 400, match: /^input byte size mismatch for input 'INPUT0' for model 'identity_fp32'\. Expected 64, got 60; binary_data_size 60 does not match FP32 \[1,16\]/ },
  { name: 'unclaimed binary bytes', ...fr(framed({ inputs: [input({ data: undefined, parameters: { binary_data_size: 64 } })] }, 68)), status: 400, match: /4 bytes of binary data after the JSON header are not claimed/ },
  { name: 'binary_data_size without the header', body: { inputs: [input({ data: undefined, parameters: { binary_data_size: 64 } })] }, status: 400, match: /no binary section/ },
  { name: 'data and binary_data_size', body: { inputs: [input({ parameters: { binary_data_size: 64 } })] }, status: 400, match: /give only one of/ },
  { name: 'INT8 out of range', path: TYPES, body: { inputs: [{ name: 'IN_INT8', datatype: 'INT8', shape: [1], data: [300] }] }, status: 400, match: /value 300 is out of range for INT8/ },
  { name: 'FP16 as JSON', path: TYPES, body: { inputs: [{ name: 'IN_FP16', datatype: 'FP16', shape: [1], data: [1] }] }, status: 400, match: /^receiving FP16 data via JSON is not supported\. Please use the binary data format for input IN_FP16; / },
  { name: 'BOOL as a number', path: TYPES, body: { inputs: [{ name: 'IN_BOOL', datatype: 'BOOL', shape: [1], data: [1] }] }, status: 400, match: /BOOL element 0 must be true or false/ },
  { name: 'BYTES as a number', path: TYPES, body: { inputs: [{ name: 'IN_STRING', datatype: 'BYTES', shape: [1], data: [1] }] }, status: 400, match: /BYTES element 0 must be a string/ },
  { name: 'corrupt gzip body', body: Buffer.from('not gzip at all'), headers: { 'content-encoding': 'gzip' }, status: 400, match: /could not decompress the request body/ },
  { name: 'unsupported Content-Encoding', body: JSON.stringify(good), headers: { 'content-encoding': 'br' }, status: 501, match: /^Unsupported compression type; Content-Encoding 'br' is not supported/ },
  { name: 'body past the limit', body: Buffer.alloc(70 * 1024, 32), status: 400, match: /^request JSON size of 71680 bytes exceeds the maximum allowed input size of 65536 bytes\. Use --http-max-input-size to increase the limit\.$/ },
  { name: 'gzip bomb past the limit', body: gzipSync(Buffer.alloc(1024 * 1024, 32)), headers: { 'content-encoding': 'gzip' }, status: 400, match: /^Decompressed data size exceeds the maximum allowed value of 65536 bytes\. Use --http-max-input-size to increase the limit\.$/ },
  { name: 'shared memory not enabled', body: { inputs: [input({ data: undefined, parameters: { shared_memory_region: 'r', shared_memory_byte_size: 64 } })] }, status: 404, match: /^Unable to find shared memory region: 'r'; client shared memory is disabled.*--allow-client-shm=true/ },
  { name: 'raw body of the wrong size', body: Buffer.alloc(10), headers: { 'inference-header-content-length': '0' }, status: 400, match: /^input byte size mismatch for input 'INPUT0' for model 'identity_fp32'\. Expected 64, got 10; / },
  { name: 'raw body to a multi-input model', path: TYPES, body: Buffer.alloc(4), headers: { 'inference-header-content-length': '0' }, status: 400, match: /^Raw request must only have 1 input \(found 1\) to be deduced but got 14 inputs in 'identity_types' model configuration; / },
  { name: 'unary request, decoupled model', path: '/v2/models/streamer/infer', body: { inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [2] }] }, status: 400, match: /more than one response/ },
  { name: 'generate: wrong field type', path: '/v2/models/gen/generate', body: { text_input: 5 }, status: 400, match: /tensor 'text_input': BYTES element 0 must be a string/ },
  { name: 'classification of a BYTES output', path: TYPES, body: { inputs: [{ name: 'IN_STRING', datatype: 'BYTES', shape: [1], data: ['a'] }], outputs: [{ name: 'OUT_STRING', parameters: { classification: 1 } }] }, status: 400, match: /^class result not available for output due to unsupported type 'BYTES'; output 'OUT_STRING': classification needs a numeric output/ },
  { name: 'unknown route', method: 'GET', path: '/v2/nothing/here', status: 404, match: /no route for GET \/v2\/nothing\/here/ },
  { name: 'metadata of an unknown model', method: 'GET', path: '/v2/models/nope', status: 404, match: /unknown model: 'nope'/ },
  { name: 'load of an unknown model', path: '/v2/repository/models/nope/load', body: {}, status: 500, match: /^failed to load 'nope', failed to poll from model repository/ },
  { name: 'load config that is not JSON', path: '/v2/repository/models/identity_fp32/load', body: { parameters: { config: '{name' } }, status: 400, match: /^failed to load 'identity_fp32', failed to poll from model repository; Invalid config override: .*parameter 'config' JSON/ },
  { name: 'load file with ..', path: '/v2/repository/models/identity_fp32/load', body: { parameters: { config: '{}', 'file:../x': 'AA==' } }, status: 400, match: /^failed to load 'identity_fp32', failed to poll from model repository; load parameter "file:\.\.\/x" is refused: it contains '\.\.'/ },
  { name: 'bad logging setting', path: '/v2/logging', body: { log_verbose_level: -1 }, status: 400, match: /'log_verbose_level' must be an integer >= 0/ },
  { name: 'unknown logging setting', path: '/v2/logging', body: { log_colour: true }, status: 400, match: /unknown logging setting 'log_colour'/ },
  { name: 'trace setting with a version', path: '/v2/models/identity_fp32/versions/1/trace/setting', body: {}, status: 400, match: /not per version/ },
  { name: 'bad trace level', path: '/v2/trace/setting', body: { trace_level: ['LOUD'] }, status: 400, match: /trace_level "LOUD" must be OFF, TIMESTAMPS or TENSORS/ },
];

function fr(f: { body: Buffer; headers: Record<string, string> }) { return f; }

test(`${cases.length} malformed requests: exact status and message, and the server keeps serving`, async () => {
  assert.ok(cases.length >= 30);
  for (const c of cases) {
    const body = c.body === undefined ? undefined : typeof c.body === 'string' || Buffer.isBuffer(c.body) ? c.body : JSON.stringify(c.body);
    const res = await fetch(t.base + (c.path ?? INFER), { method: c.method ?? 'POST', headers: c.headers ?? {}, body });
    const text = await res.text();
    assert.equal(res.status, c.status, `${c.name}: status (body ${text})`);
    assert.match(JSON.parse(text).error, c.match, c.name);
    const ok = await fetch(t.base + INFER, { method: 'POST', body: JSON.stringify(good) });
    assert.equal(ok.status, 200, `serving after: ${c.name}`);
    assert.deepEqual((await ok.json().then(loose)).outputs[0].data, F16);
  }
});
