/**
 * BYTES outputs that are not UTF-8, requested as JSON, go out with their bytes raw inside the JSON
 * string, as Triton's http_server.cc writes them (WriteDataToJson, AppendStringRef): never replaced
 * by U+FFFD. A real TypeScript model returns the bytes; the plain JSON response, the JSON header of
 * a binary-framed response, SSE events and the generate extension are read as bytes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type LocalServer } from '../../../src/server/index.js';
import { startHttpServer } from '../../../src/frontend/http/index.js';
import { jsonWireBytes, rawBytesJsonString } from '../../../src/protocol/raw-bytes-json.js';
import { decodeInferResponse } from '../../../src/protocol/index.js';
import { createHttpClient, createTensor } from '../../../src/client/index.js';
import { tempRepo, type TempRepo } from '../../helpers/temp-repo.js';

/** a, 0xff, 0xfe, b; a cut euro sign; U+1F080 (its second UTF-16 half lies in U+DC80-U+DCFF) then a stray 0x80. */
const RAW = [[0x61, 0xff, 0xfe, 0x62], [0xe2, 0x82, 0x78], [0xf0, 0x9f, 0x82, 0x80, 0x80]];
const SCRIPT = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map(() => new InferenceResponse({ outputs: [
      new Tensor('RAW', 'BYTES', [3], ${JSON.stringify(RAW)}.map((b) => Uint8Array.from(b))),
      new Tensor('text_output', 'BYTES', [1], [Uint8Array.from([0x22, 0x5c, 0x0a, 0xc3, 0xa9, 0xff])]),
      new Tensor('TEXT', 'BYTES', [1], [new TextEncoder().encode('plain "é"')]),
    ] }));
  }
}
`;
const CONFIG = `name: "raw"
backend: "typescript"
max_batch_size: 0
input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] } ]
output [ { name: "RAW" data_type: TYPE_STRING dims: [ 3 ] }, { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] },
         { name: "TEXT" data_type: TYPE_STRING dims: [ 1 ] } ]
`;

let repo: TempRepo;
let server: LocalServer;
let base: string;
let closeHttp: () => Promise<void>;

before(async () => {
  repo = tempRepo({ 'raw/config.pbtxt': CONFIG, 'raw/1/model.ts': SCRIPT });
  server = await createServer({ modelRepository: repo.dir });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${http.port}`;
  closeHttp = () => http.close();
});
after(async () => { await closeHttp(); await server.close(); repo.remove(); });

const REQUEST = { inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: ['x'] }] };
const bytes = (...parts: (string | number[] | Uint8Array)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
/** RAW's data as Triton writes it: each element's bytes between quotes. */
const RAW_DATA = bytes('"data":["', RAW[0]!, '","', RAW[1]!, '","', RAW[2]!, '"]');
/** text_output: the quote, backslash and newline escaped as JSON must, é as UTF-8, 0xff raw. */
const TEXT_OUTPUT = bytes('"\\"\\\\\\n', [0xc3, 0xa9, 0xff], '"');

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

test('a plain JSON response carries the bytes raw; UTF-8 BYTES stay text', async () => {
  const { res, body } = await post('/v2/models/raw/infer', REQUEST);
  assert.equal(res.status, 200, body.toString());
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.ok(body.includes(RAW_DATA), body.toString('latin1'));
  assert.ok(body.includes(bytes('"data":[', TEXT_OUTPUT, ']')), body.toString('latin1'));
  assert.ok(body.includes(bytes('"data":["plain \\"é\\""]')), body.toString('latin1'));
  assert.ok(!body.includes(Buffer.from('\ufffd')), 'no U+FFFD anywhere');
});

test('the JSON header of a binary-framed response carries the bytes raw, and its length counts them', async () => {
  const req = { ...REQUEST, outputs: [{ name: 'RAW' }, { name: 'TEXT', parameters: { binary_data: true } }] };
  const { res, body } = await post('/v2/models/raw/infer', req);
  assert.equal(res.status, 200, body.toString());
  const headerLength = Number(res.headers.get('inference-header-content-length'));
  const header = body.subarray(0, headerLength);
  assert.ok(header.includes(RAW_DATA), header.toString('latin1'));
  assert.equal(header.at(-1), 0x7d, 'the header ends where its length says');
  assert.deepEqual(body.subarray(headerLength), bytes([10, 0, 0, 0], 'plain "é"'));
});

test('our client keeps the raw bytes exactly: the SDK over JSON, and decodeInferResponse on a binary-framed body', async () => {
  const expected = [...RAW.map((b) => Uint8Array.from(b))];
  const client = createHttpClient({ url: base, binary: false });
  try {
    const r = await client.infer('raw', [createTensor('text_input', 'BYTES', [1], [new TextEncoder().encode('x')])]);
    assert.deepEqual(r.output('RAW').data, expected);
    assert.deepEqual(r.output('text_output').data, [Uint8Array.from([0x22, 0x5c, 0x0a, 0xc3, 0xa9, 0xff])]);
    assert.deepEqual(r.output('TEXT').data, [new TextEncoder().encode('plain "é"')]);
  } finally {
    await client.close();
  }
  const req = { ...REQUEST, outputs: [{ name: 'RAW' }, { name: 'TEXT', parameters: { binary_data: true } }] };
  const { res, body } = await post('/v2/models/raw/infer', req);
  const decoded = decodeInferResponse(body, Number(res.headers.get('inference-header-content-length')));
  assert.deepEqual(decoded.outputs.find((o) => o.name === 'RAW')!.data, expected);
  // A binary output is a Buffer view over the body: its bytes are what counts.
  assert.deepEqual((decoded.outputs.find((o) => o.name === 'TEXT')!.data as Uint8Array[]).map((d) => Uint8Array.from(d)), [new TextEncoder().encode('plain "é"')]);
});

test('SSE events from /infer and /generate_stream, and /generate, carry the bytes raw', async () => {
  const sse = await post('/v2/models/raw/infer', REQUEST, { accept: 'text/event-stream' });
  assert.equal(sse.res.status, 200);
  assert.ok(sse.body.subarray(0, 6).equals(Buffer.from('data: ')));
  assert.ok(sse.body.includes(RAW_DATA), sse.body.toString('latin1'));

  const stream = await post('/v2/models/raw/generate_stream', { text_input: 'x' });
  assert.equal(stream.res.status, 200, stream.body.toString());
  assert.ok(stream.body.includes(bytes('"text_output":', TEXT_OUTPUT, ',')), stream.body.toString('latin1'));
  assert.ok(stream.body.subarray(-3).equals(Buffer.from('}\n\n')), 'the event ends after the raw bytes');
  assert.ok(stream.body.includes(bytes('"RAW":["', RAW[0]!, '"')), stream.body.toString('latin1'));

  const unary = await post('/v2/models/raw/generate', { text_input: 'x' });
  assert.equal(unary.res.status, 200, unary.body.toString());
  assert.ok(unary.body.includes(bytes('"text_output":', TEXT_OUTPUT)), unary.body.toString('latin1'));
});

test('any bytes without JSON specials come out exactly as they went in', () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  for (let round = 0; round < 2000; round++) {
    const b = Uint8Array.from({ length: next() % 12 }, () => {
      for (;;) {
        const v = next();
        if (v >= 0x20 && v !== 0x22 && v !== 0x5c) return v;
      }
    });
    const wire = jsonWireBytes(rawBytesJsonString(b));
    assert.deepEqual(Buffer.from(wire), bytes('"', [...b], '"'), `bytes ${Buffer.from(b).toString('hex')}`);
  }
});
