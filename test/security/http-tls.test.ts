/**
 * HTTPS on the HTTP front end (--http-use-ssl, --http-use-ssl-mutual), with certificates made for
 * this run: plain text, garbage and stalled handshakes on the TLS port fail cleanly while the server
 * keeps serving; mutual TLS reads no request from a client without a certificate signed by the root
 * certificate; the bounds of plain HTTP hold inside TLS; the SDK speaks HTTPS (with a client
 * certificate when asked) and refuses a server it cannot verify.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { ClientError, createHttpClient } from '../../src/client/index.js';
import { setLogSink } from '../../src/logger.js';
import { createTensor } from '../../src/tensor/index.js';
import { startTestServer, type TestServer } from '../frontend/http/test-server.js';
import { makeCerts } from '../helpers/make-certs.js';
import { errorResponse, exchange } from './raw-http.js';

setLogSink(() => {});

const certs = makeCerts();
const HEADER_TIMEOUT_MS = 500;
const INFER = '/v2/models/identity_fp32/infer';
const F16 = Array.from({ length: 16 }, (_, i) => i);
const good = JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: F16 }] });

let tls: TestServer;
let mutual: TestServer;
const portOf = (s: TestServer) => Number(new URL(s.base).port);

before(async () => {
  const server = { cert: certs.pem.serverCert, key: certs.pem.serverKey };
  tls = await startTestServer({ tls: server, headerTimeoutMs: HEADER_TIMEOUT_MS, requestTimeoutMs: 1000, maxInputSize: 1 << 20 });
  mutual = await startTestServer({ tls: { ...server, rootCert: certs.pem.ca, mutual: true }, headerTimeoutMs: HEADER_TIMEOUT_MS });
});
after(async () => {
  await tls.close();
  await mutual.close();
});

interface Outcome { status?: number; body?: string; error?: string }

/** One HTTPS request with node:https; the outcome is a status and body, or the connection's error. */
function call(port: number, options: { cert?: Buffer; key?: Buffer; ca?: Buffer; method?: string; path?: string; body?: string } = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = httpsRequest({
      host: '127.0.0.1', port, servername: 'localhost', agent: false, method: options.method ?? 'POST', path: options.path ?? INFER,
      ca: options.ca ?? certs.pem.ca, ...(options.cert ? { cert: options.cert, key: options.key } : {}),
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(options.body ?? good);
  });
}

const inferCount = (s: TestServer) => s.server.modelStatistics('identity_fp32').model_stats.reduce((n, m) => n + m.inference_count, 0);

async function assertServing(s: TestServer, client: { cert?: Buffer; key?: Buffer } = {}): Promise<void> {
  const r = await call(portOf(s), client);
  assert.equal(r.status, 200, r.body ?? r.error);
  assert.deepEqual((JSON.parse(r.body!) as { outputs: { data: number[] }[] }).outputs[0]!.data, F16);
}

const clientCert = { cert: certs.pem.clientCert, key: certs.pem.clientKey };

// --- one-way TLS -------------------------------------------------------------------------------

test('HTTPS with the CA: inference answers', async () => {
  await assertServing(tls);
});

test('plain HTTP to the HTTPS port: a plain-text 400 saying to use https, then closed', async () => {
  const x = await exchange(portOf(tls), [`POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: ${good.length}\r\n\r\n${good}`]);
  const e = errorResponse(x.text);
  assert.equal(e.status, 400);
  assert.match(e.error, /^this port serves HTTPS \(--http-use-ssl\): send the request with https:\/\//);
  assert.ok(x.closed);
  await assertServing(tls);
});

test('garbage bytes to the HTTPS port: closed without an answer', async () => {
  const x = await exchange(portOf(tls), [Buffer.from([0x16, 0x03, 0x01, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8])], { waitMs: 3000 });
  assert.ok(x.closed, 'the server closed the connection');
  assert.equal(x.text.startsWith('HTTP/'), false);
  await assertServing(tls);
});

test('a TCP connection that never starts the handshake: closed at the header timeout', async () => {
  const x = await exchange(portOf(tls), [], { waitMs: 5000 });
  assert.ok(x.closed && x.ms < HEADER_TIMEOUT_MS + 1500, `closed after ${x.ms.toFixed(0)} ms`);
  assert.equal(x.text, '');
  await assertServing(tls);
});

test('malformed HTTP inside TLS: 400 with a {"error"} body', async () => {
  const x = await exchange(portOf(tls), ['NOT HTTP AT ALL\r\n\r\n'], { tls: { ca: certs.pem.ca } });
  const e = errorResponse(x.text);
  assert.equal(e.status, 400);
  assert.match(e.error, /^malformed HTTP request: /);
  await assertServing(tls);
});

test('slow headers inside TLS: 408 at the header timeout', async () => {
  const x = await exchange(portOf(tls), ['GET /v2 HTTP/1.1\r\n'], { tls: { ca: certs.pem.ca }, waitMs: 5000 });
  const e = errorResponse(x.text);
  assert.equal(e.status, 408);
  assert.match(e.error, /--http-header-timeout-secs/);
  assert.ok(x.closed && x.ms < HEADER_TIMEOUT_MS + 1500, `closed after ${x.ms.toFixed(0)} ms`);
  await assertServing(tls);
});

test('a body past the limit inside TLS: 400', async () => {
  const r = await call(portOf(tls), { body: 'x'.repeat(2 << 20) });
  assert.equal(r.status, 400, r.body ?? r.error);
  assert.match(JSON.parse(r.body!).error, /^request JSON size of 2097152 bytes exceeds the maximum allowed input size of 1048576 bytes/);
  await assertServing(tls);
});

// --- mutual TLS --------------------------------------------------------------------------------

test('mutual TLS without a client certificate: refused in the handshake, no request read', async () => {
  const before = inferCount(mutual);
  const r = await call(portOf(mutual));
  assert.equal(r.status, undefined, `answered ${r.status}: ${r.body}`);
  assert.ok(r.error, 'the connection failed');
  assert.equal(inferCount(mutual), before);
  await assertServing(mutual, clientCert);
});

test('mutual TLS with a certificate from another CA: refused in the handshake', async () => {
  const before = inferCount(mutual);
  const r = await call(portOf(mutual), { cert: certs.pem.strangerCert, key: certs.pem.strangerKey });
  assert.equal(r.status, undefined, `answered ${r.status}: ${r.body}`);
  assert.ok(r.error);
  assert.equal(inferCount(mutual), before);
  await assertServing(mutual, clientCert);
});

test('mutual TLS with a client certificate signed by the root certificate: served', async () => {
  await assertServing(mutual, clientCert);
});

test('plain HTTP to the mutual-TLS port: 400 saying to use https, no request read', async () => {
  const before = inferCount(mutual);
  const x = await exchange(portOf(mutual), [`POST ${INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: ${good.length}\r\n\r\n${good}`]);
  assert.equal(errorResponse(x.text).status, 400);
  assert.equal(inferCount(mutual), before);
});

// --- the SDK over HTTPS ------------------------------------------------------------------------

const tensor = () => createTensor('INPUT0', 'FP32', [1, 16], Float32Array.from(F16));

test('SDK over HTTPS with the CA: infer round-trips', async () => {
  const client = createHttpClient({ url: `https://localhost:${portOf(tls)}`, tls: { ca: certs.pem.ca } });
  try {
    const r = await client.infer('identity_fp32', [tensor()]);
    assert.deepEqual(Array.from(r.output('OUTPUT0').data as Float32Array), F16);
    assert.equal(await client.isServerLive(), true);
  } finally {
    await client.close();
  }
});

test('SDK with a client certificate against mutual TLS: served; without one: refused', async () => {
  const url = `localhost:${portOf(mutual)}`; // no scheme: `tls` makes it https
  const withCert = createHttpClient({ url, tls: { ca: certs.pem.ca, ...clientCert } });
  const without = createHttpClient({ url, tls: { ca: certs.pem.ca } });
  try {
    const r = await withCert.infer('identity_fp32', [tensor()]);
    assert.deepEqual(Array.from(r.output('OUTPUT0').data as Float32Array), F16);
    await assert.rejects(without.infer('identity_fp32', [tensor()]), (e: unknown) => e instanceof ClientError && e.kind === 'UNAVAILABLE');
  } finally {
    await withCert.close();
    await without.close();
  }
});

test('SDK refuses a server whose certificate its CA did not sign (no request is sent)', async () => {
  const before = inferCount(tls);
  const client = createHttpClient({ url: `https://localhost:${portOf(tls)}`, tls: { ca: certs.pem.strangerCert } });
  try {
    await assert.rejects(client.infer('identity_fp32', [tensor()]), (e: unknown) => e instanceof ClientError && /certificate/i.test(e.message));
    assert.equal(inferCount(tls), before);
  } finally {
    await client.close();
  }
});

test('SDK: tls options with an http:// URL, or a certificate without its key, are refused', () => {
  assert.throws(() => createHttpClient({ url: 'http://localhost:1', tls: {} }), /need an https:\/\/ URL/);
  assert.throws(() => createHttpClient({ url: 'https://localhost:1', tls: { cert: certs.pem.clientCert } }), /tls.cert and tls.key go together/);
});
