/**
 * Attacks on the HTTP front end's bounds, each over a real connection to a real server: bodies and
 * decompression bombs past --http-max-input-size, hostile JSON (nesting, parameter sizes and counts,
 * input/output counts, ranks), slow clients, connection floods and malformed HTTP. Every refusal is
 * a 4xx (408/431/400) or Triton's 501 with a `{"error"}` body; each case also shows what was NOT done (no
 * memory spent on the bomb, no body read, nothing reached the model) and that the server still
 * answers afterwards.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { setLogSink } from '../../src/logger.js';
import { startTestServer, type TestServer } from '../frontend/http/test-server.js';
import { deflateBomb, gzipBomb } from '../helpers/compression-bomb.js';
import { errorResponse, exchange, responses } from './raw-http.js';

setLogSink(() => {}); // model loads and the refused-connection warning are expected

const LIMIT = 4 << 20;
const HEADER_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1200;
const INFER = '/v2/models/identity_fp32/infer';
const F16 = Array.from({ length: 16 }, (_, i) => i);
const input = (over: Record<string, unknown> = {}) => ({ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: F16, ...over });
const good = JSON.stringify({ inputs: [input()] });

let t: TestServer;
let port: number;
before(async () => {
  t = await startTestServer({ maxInputSize: LIMIT, headerTimeoutMs: HEADER_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  port = Number(new URL(t.base).port);
});
after(async () => { await t.close(); });

interface Reply { status: number; body: string; headers: Record<string, unknown> }

/** POST with node:http; resolves with the response even when the server stops reading the body. */
function post(path: string, body: Buffer | string, headers: Record<string, string | number> = {}, chunkSize?: number): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest({
      host: '127.0.0.1', port, path, method: 'POST', agent: false,
      headers: chunkSize ? headers : { 'content-length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
      res.on('error', reject);
    });
    // Once answered, a write the server no longer reads may fail (EPIPE): that is the point.
    req.on('error', (e) => { if (!answered) reject(e); });
    if (!chunkSize) return void req.end(body);
    const bytes = Buffer.from(body);
    for (let p = 0; p < bytes.length; p += chunkSize) req.write(bytes.subarray(p, p + chunkSize));
    req.end();
  });
}

const errorOf = (r: Reply) => (JSON.parse(r.body) as { error: string }).error;

async function inferCount(): Promise<number> {
  const stats = t.server.modelStatistics('identity_fp32');
  return stats.model_stats.reduce((n, s) => n + s.inference_count, 0);
}

/** The server still answers a good request with the right data. */
async function assertServing(): Promise<void> {
  const res = await fetch(t.base + INFER, { method: 'POST', body: good });
  assert.equal(res.status, 200);
  assert.deepEqual(((await res.json()) as { outputs: { data: number[] }[] }).outputs[0]!.data, F16);
}

/** Peak RSS growth (MB) while `body` runs, sampled every 5 ms. */
async function rssGrowth<T>(body: () => Promise<T>): Promise<{ result: T; mb: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 5);
  try {
    const result = await body();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, mb: (peak - base) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

// --- sizes and decompression bombs -------------------------------------------------------------

for (const [name, bomb] of [['gzip', gzipBomb(1024)], ['deflate', deflateBomb(1024)]] as const) {
  test(`${name} bomb (${(bomb.length / 2 ** 20).toFixed(1)} MB inflating to 1 GiB): 400 at once, memory stays flat`, async () => {
    const started = performance.now();
    const { result: r, mb } = await rssGrowth(() => post(INFER, bomb, { 'content-encoding': name }));
    const ms = performance.now() - started;
    assert.equal(r.status, 400, r.body);
    assert.equal(errorOf(r), 'Decompressed data size exceeds the maximum allowed value of 4194304 bytes. Use --http-max-input-size to increase the limit.');
    assert.ok(ms < 1500, `refused after ${ms.toFixed(0)} ms (inflating 1 GiB takes seconds)`);
    assert.ok(mb < 150, `RSS grew ${mb.toFixed(0)} MB for a 1 GiB bomb`);
    await assertServing();
  });
}

test('four gzip bombs at once: all 400, memory stays flat', async () => {
  const bomb = gzipBomb(1024);
  const { result, mb } = await rssGrowth(() => Promise.all([1, 2, 3, 4].map(() => post(INFER, bomb, { 'content-encoding': 'gzip' }))));
  for (const r of result) assert.equal(r.status, 400, r.body);
  assert.ok(mb < 200, `RSS grew ${mb.toFixed(0)} MB for 4 GiB of bombs`);
  await assertServing();
});

test('gzip bomb sent chunked (no Content-Length): 400 in Triton\'s words', async () => {
  const r = await post(INFER, gzipBomb(64), { 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' }, 16 * 1024);
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^Decompressed data size exceeds the maximum allowed value of 4194304 bytes\. Use --http-max-input-size to increase the limit\.$/);
  await assertServing();
});

test('Content-Length over the limit: 400 before a byte of the body is sent', async () => {
  const x = await exchange(port, [`POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`], { waitMs: 3000 });
  const e = errorResponse(x.text);
  assert.equal(e.status, 400);
  assert.equal(e.error, 'request JSON size of 4194305 bytes exceeds the maximum allowed input size of 4194304 bytes. Use --http-max-input-size to increase the limit.');
  assert.equal(e.headers.connection, 'close');
  assert.ok(x.closed && x.ms < REQUEST_TIMEOUT_MS, `closed ${x.closed} after ${x.ms.toFixed(0)} ms: the answer did not wait for the body`);
  await assertServing();
});

test('chunked body over the limit: 400 while it streams, the rest is not buffered', async () => {
  const before = await inferCount();
  const r = await post(INFER, Buffer.alloc(4 * LIMIT, 0x20), { 'transfer-encoding': 'chunked' }, 64 * 1024);
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^request JSON size of \d+ bytes exceeds the maximum allowed input size of 4194304 bytes\. Use --http-max-input-size to increase the limit\.; it was refused when \d+ bytes had arrived, before its end/);
  assert.equal(await inferCount(), before, 'nothing reached the model');
  await assertServing();
});

test('Content-Length longer than the body sent: 408 after --http-request-timeout-secs, connection closed', async () => {
  const x = await exchange(port, [`POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"inputs":`], { waitMs: 5000 });
  const e = errorResponse(x.text);
  assert.equal(e.status, 408);
  assert.match(e.error, /^the request's body did not arrive within 1.2 s \(--http-request-timeout-secs\)/);
  assert.ok(x.closed && x.ms >= REQUEST_TIMEOUT_MS - 100 && x.ms < REQUEST_TIMEOUT_MS + 2000, `closed after ${x.ms.toFixed(0)} ms`);
  await assertServing();
});

test('Content-Length shorter than the body sent: the excess is not run as a request (400 and closed)', async () => {
  const before = await inferCount();
  const smuggled = `POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: ${good.length}\r\n\r\n${good}`;
  const x = await exchange(port, [`POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}`, { pauseMs: 200 }, `garbage ${smuggled}`], { waitMs: 3000 });
  const [first, second, third] = responses(x.text);
  assert.equal(first?.status, 400);
  assert.match(JSON.parse(first!.body).error, /must have an 'inputs' array/);
  assert.equal(second?.status, 400);
  assert.match(JSON.parse(second!.body).error, /^malformed HTTP request: /);
  assert.equal(third, undefined, 'no response to the smuggled request');
  assert.ok(x.closed);
  assert.equal(await inferCount(), before, 'the smuggled request never reached the model');
  await assertServing();
});

test('Content-Length together with Transfer-Encoding (request smuggling): 400', async () => {
  const x = await exchange(port, [`POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`]);
  const e = errorResponse(x.text);
  assert.equal(e.status, 400);
  assert.match(e.error, /^malformed HTTP request: /);
  assert.ok(x.closed);
  await assertServing();
});

test('unknown Content-Encoding: Triton\'s 501 naming the encodings it takes, the body is not decoded', async () => {
  const r = await post(INFER, good, { 'content-encoding': 'br' });
  assert.equal(r.status, 501);
  assert.match(errorOf(r), /^Unsupported compression type; Content-Encoding 'br' is not supported: use gzip, deflate or identity$/);
  assert.equal(r.headers['accept-encoding'], 'gzip, deflate');
  await assertServing();
});

test('corrupt gzip body: 400', async () => {
  const bytes = gzipSync(good);
  bytes[20]! ^= 0xff;
  const r = await post(INFER, bytes, { 'content-encoding': 'gzip' });
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^could not decompress the request body/);
  await assertServing();
});

// --- hostile JSON ------------------------------------------------------------------------------

const deep = (n: number) => '['.repeat(n) + '1' + ']'.repeat(n);

test('deep JSON nesting in the inference request (500 000 levels): 400, refused before parsing', async () => {
  const body = JSON.stringify({ inputs: [input()] }).replace('"data":[', `"data":${deep(500_000)},"x":[`);
  const started = performance.now();
  const r = await post(INFER, body);
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^JSON nesting depth exceeds maximum allowed limit \(100\); the inference request JSON nests arrays and objects more than 100 levels deep/);
  assert.ok(performance.now() - started < 1000);
  await assertServing();
});

test('deep JSON nesting in a binary request\'s JSON header: 400', async () => {
  const header = `{"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[1,16],"parameters":{"binary_data_size":64}}],"x":${deep(100)}}`;
  const r = await post(INFER, Buffer.concat([Buffer.from(header), Buffer.alloc(64)]), { 'inference-header-content-length': Buffer.byteLength(header) });
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^JSON nesting depth exceeds maximum allowed limit \(100\); the inference request JSON nests arrays and objects more than 100 levels deep/);
  await assertServing();
});

test('deep JSON nesting in a settings body (no 500 from a RangeError): 400', async () => {
  const r = await post('/v2/trace/setting', `{"trace_level":${deep(100_000)}}`);
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^JSON nesting depth exceeds maximum allowed limit \(100\); the trace settings JSON nests arrays and objects more than 100 levels deep/);
  await assertServing();
});

test('nested data as deep as the shape is still accepted (the depth bound leaves valid requests alone)', async () => {
  const rows = [Array.from({ length: 16 }, (_, i) => i)];
  const r = await post(INFER, JSON.stringify({ inputs: [input({ data: rows })] }));
  assert.equal(r.status, 200, r.body);
});

test('a huge string parameter (1 MB): 400, nothing reaches the model', async () => {
  const before = await inferCount();
  const r = await post(INFER, JSON.stringify({ inputs: [input()], parameters: { note: 'x'.repeat(1000_000) } }));
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^request parameter 'note': its value is 1000000 bytes, more than the limit of 65536/);
  assert.equal(await inferCount(), before);
  await assertServing();
});

test('a huge parameter name: 400, and the message quotes only its start', async () => {
  const key = 'k'.repeat(10_000);
  const r = await post(INFER, JSON.stringify({ inputs: [input({ parameters: { [key]: 1 } })] }));
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^input 'INPUT0' parameter 'k{64}\.\.\.': its name is 10000 bytes, more than the limit of 256/);
  assert.ok(r.body.length < 400, 'the 10 000-byte name is not echoed');
  await assertServing();
});

test('too many parameters (1000): 400', async () => {
  const parameters = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, i]));
  const r = await post(INFER, JSON.stringify({ inputs: [input()], outputs: [{ name: 'OUTPUT0', parameters }] }));
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^output 'OUTPUT0' has 1000 parameters, more than the limit of 64/);
  await assertServing();
});

test('too many inputs (5000): 400 before any is decoded', async () => {
  const before = await inferCount();
  const inputs = Array.from({ length: 5000 }, (_, i) => input({ name: `IN${i}` }));
  const r = await post(INFER, JSON.stringify({ inputs }));
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^model 'identity_fp32': the request has 5000 inputs, more than the limit of 1024/);
  assert.equal(await inferCount(), before);
  await assertServing();
});

test('too many requested outputs (5000): 400', async () => {
  const outputs = Array.from({ length: 5000 }, (_, i) => ({ name: `OUT${i}` }));
  const r = await post(INFER, JSON.stringify({ inputs: [input()], outputs }));
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^model 'identity_fp32': the request asks for 5000 outputs, more than the limit of 1024/);
  await assertServing();
});

test('a shape of rank 10 000: 400', async () => {
  const r = await post(INFER, JSON.stringify({ inputs: [input({ shape: Array(10_000).fill(1), data: [1] })] }));
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^tensor 'INPUT0': the shape has 10000 dimensions, more than the limit of 64/);
  await assertServing();
});

test('generate request with a huge parameter: 400', async () => {
  const r = await post('/v2/models/gen/generate', JSON.stringify({ text_input: 'hi', parameters: { p: 'y'.repeat(100_000) } }));
  assert.equal(r.status, 400, r.body);
  assert.match(errorOf(r), /^the generate request parameter 'p': its value is 100000 bytes/);
  await assertServing();
});

// --- slow clients ------------------------------------------------------------------------------

test('slow headers (a request line, then nothing): 408 after --http-header-timeout-secs, closed', async () => {
  const x = await exchange(port, [`POST ${INFER} HTTP/1.1\r\nHost: x\r\n`], { waitMs: 5000 });
  const e = errorResponse(x.text);
  assert.equal(e.status, 408);
  assert.match(e.error, /^the request's line and headers did not arrive within 0.5 s \(--http-header-timeout-secs\)/);
  assert.ok(x.closed && x.ms < HEADER_TIMEOUT_MS + 1500, `closed after ${x.ms.toFixed(0)} ms`);
  await assertServing();
});

test('headers trickled a byte at a time: cut off at the header timeout', async () => {
  const line = `GET /v2/health/live HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(100)}\r\n\r\n`;
  const steps = [...line].flatMap((ch) => [ch, { pauseMs: 50 }]);
  const x = await exchange(port, steps, { waitMs: 8000 });
  assert.equal(errorResponse(x.text).status, 408);
  assert.ok(x.closed && x.ms < HEADER_TIMEOUT_MS + 1500, `closed after ${x.ms.toFixed(0)} ms`);
  assert.ok(x.unsent > 0, 'the connection was gone before the headers were complete');
  await assertServing();
});

test('an idle connection that never sends a byte: closed at the header timeout', async () => {
  const x = await exchange(port, [], { waitMs: 5000 });
  assert.ok(x.closed && x.ms < HEADER_TIMEOUT_MS + 1500, `closed after ${x.ms.toFixed(0)} ms`);
  assert.equal(errorResponse(x.text).status, 408);
  await assertServing();
});

test('slow body (headers, then a byte every 100 ms): 408 at the request timeout, nothing reaches the model', async () => {
  const before = await inferCount();
  const steps = [`POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: ${good.length}\r\n\r\n`, ...[...good].flatMap((ch) => [{ pauseMs: 100 }, ch])];
  const x = await exchange(port, steps, { waitMs: 8000 });
  const e = errorResponse(x.text);
  assert.equal(e.status, 408);
  assert.match(e.error, /^the request's body did not arrive within 1.2 s/);
  assert.ok(x.closed && x.ms < REQUEST_TIMEOUT_MS + 1500, `closed after ${x.ms.toFixed(0)} ms`);
  assert.ok(x.unsent > 0, 'cut off before the body was complete');
  assert.equal(await inferCount(), before);
  await assertServing();
});

test('an idle keep-alive connection is not cut off by the header timeout (only a started request is)', async () => {
  const live = 'GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n';
  const x = await exchange(port, [live, { pauseMs: REQUEST_TIMEOUT_MS + 300 }, live, { pauseMs: 200 }], { waitMs: REQUEST_TIMEOUT_MS + 800 });
  assert.deepEqual(responses(x.text).map((r) => r.status), [200, 200]);
  assert.equal(x.closed, false);
});

test('a request that takes longer to answer (3 s) than the request timeout is not cut off', async () => {
  const r = await post('/v2/models/slow/infer', JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1], data: [7] }] }));
  assert.equal(r.status, 200, r.body);
});

// --- connection flood --------------------------------------------------------------------------

test('connections past --http-max-connections: a newcomer takes the slot of the oldest one that has sent nothing; with all in use it is closed on arrival', async () => {
  const small = await startTestServer({ maxConnections: 3 });
  const live = 'GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n';
  try {
    const p = Number(new URL(small.base).port);
    const connectOne = () => new Promise<Socket>((resolve) => { const s = connect(p, '127.0.0.1', () => resolve(s)); s.on('error', () => {}); });
    // Three silent connections: the fourth closes the oldest of them and is served.
    const silent = [await connectOne(), await connectOne(), await connectOne()];
    const oldestClosed = new Promise<void>((resolve) => { silent[0]!.resume(); silent[0]!.once('close', () => resolve()); });
    await new Promise((r) => setTimeout(r, 50));
    const served = await exchange(p, [live, { pauseMs: 100 }], { waitMs: 2000 });
    assert.equal(responses(served.text)[0]?.status, 200);
    await oldestClosed;
    for (const s of silent) s.destroy();
    await new Promise((r) => setTimeout(r, 50));
    // Three kept-alive connections that each made a request: the fourth is closed unread.
    const busy = [await connectOne(), await connectOne(), await connectOne()];
    for (const s of busy) s.write(live);
    await new Promise((r) => setTimeout(r, 100));
    const refused = await exchange(p, [live], { waitMs: 2000 });
    assert.ok(refused.closed, 'the fourth connection was closed');
    assert.equal(refused.text, '', 'and never answered: no request was read from it');
    busy[0]!.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const again = await exchange(p, ['GET /v2/health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], { waitMs: 2000 });
    assert.equal(responses(again.text)[0]?.status, 200, 'a freed slot serves again');
    for (const s of busy) s.destroy();
  } finally {
    await small.close();
  }
});

test('1100 connections that send nothing: a client is still answered; the oldest are closed as the pending bound (256) fills, the rest at the header timeout', async () => {
  const silent: { socket: Socket; closed: boolean }[] = [];
  for (let i = 0; i < 1100; i += 100) {
    await Promise.all(Array.from({ length: 100 }, () => new Promise<void>((resolve) => {
      const x = { socket: connect(port, '127.0.0.1'), closed: false };
      silent.push(x);
      x.socket.on('error', () => {});
      x.socket.resume();
      x.socket.on('close', () => { x.closed = true; resolve(); });
      x.socket.once('connect', () => resolve());
    })));
  }
  const t0 = performance.now();
  await assertServing();
  assert.ok(performance.now() - t0 < 15_000);
  const end = Date.now() + HEADER_TIMEOUT_MS + 10_000;
  while (silent.some((x) => !x.closed) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  assert.equal(silent.filter((x) => !x.closed).length, 0, 'every silent connection closed by the header timeout');
  await assertServing();
});

// --- malformed HTTP (node's parser) and fastify's own errors -----------------------------------

const malformed: [string, string, number, RegExp][] = [
  ['a garbage request line', 'HELLO THERE\r\n\r\n', 400, /^malformed HTTP request: /],
  ['an unknown method token', 'BR3W /v2 HTTP/1.1\r\nHost: x\r\n\r\n', 400, /^malformed HTTP request: /],
  ['a bad HTTP version', 'GET /v2 HTTP/9.9\r\nHost: x\r\n\r\n', 400, /^malformed HTTP request: /],
  ['a header name with a space', 'GET /v2 HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400, /^malformed HTTP request: /],
  ['a header line without a colon', 'GET /v2 HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n', 400, /^malformed HTTP request: /],
  ['a non-numeric Content-Length', `POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n`, 400, /^malformed HTTP request: /],
  ['a bad chunk size', `POST ${INFER} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`, 400, /^malformed HTTP request: /],
  ['headers over 16 KiB', `GET /v2 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, /^the request line and headers are larger than the 16384-byte limit/],
  ['a URL with broken percent-encoding', 'GET /v2/models/%E0%A4%A/ready HTTP/1.1\r\nHost: x\r\n\r\n', 400, /^malformed HTTP request: the URL path is not valid percent-encoding/],
  ['an invalid Content-Type', `POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Type: ;;;=\r\nContent-Length: 2\r\n\r\n{}`, 415, /^the Content-Type header is not a valid media type/],
  ['a CONNECT (proxy tunnel) request', 'CONNECT internal.example:443 HTTP/1.1\r\nHost: internal.example:443\r\n\r\n', 400, /^malformed HTTP request: CONNECT is not served here/],
  ['an HTTP/2 preface sent to HTTP/1.1', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400, /^malformed HTTP request: /],
  ['a 2000-character path segment', `GET /v2/models/${'m'.repeat(2000)}/ready HTTP/1.1\r\nHost: x\r\n\r\n`, 414, /^a path segment of the URL is longer than 1024 characters/],
];

for (const [name, bytes, status, message] of malformed) {
  test(`${name}: ${status} with a {"error"} body`, async () => {
    const x = await exchange(port, [bytes], { waitMs: 3000 });
    const e = errorResponse(x.text);
    assert.equal(e.status, status, x.text);
    assert.match(e.error, message);
    assert.equal(e.headers['content-type']?.startsWith('application/json'), true);
    await assertServing();
  });
}
