/**
 * The CloudEvents sink against a real receiver (node:http on loopback), through a real server's
 * HTTP front end: KServe inference-logger events for each request and response, ce-id the request
 * id; a receiver that fails is retried, one that never answers makes events drop, counted, while
 * every request is answered as usual.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { REQUEST_EVENT, RESPONSE_EVENT, createCapture, parseCaptureConfig, type Capture } from '../../src/capture/index.js';
import { createDataPlane } from '../../src/dataplane/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { quietLog } from '../helpers/quiet-log.js';

quietLog([/CloudEvents receiver/]);

interface Received { headers: IncomingMessage['headers']; body: string }

let server: LocalServer;
before(async () => {
  server = await createServer({ modelRepository: new URL('../fixtures/bls/', import.meta.url).pathname, modelControlMode: 'explicit', loadModels: ['ident'] });
});
after(async () => { await server?.close(); });

async function receiver(answer: (n: number) => number | 'hang'): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  let n = 0;
  const http: HttpServer = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { body += c; });
    req.on('end', () => {
      const status = answer(n++);
      if (status === 'hang') return;
      if (status < 300) got.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/events`,
    got,
    close: () => new Promise<void>((r) => { http.closeAllConnections(); http.close(() => r()); }),
  };
}

async function front(capture: Capture): Promise<{ base: string; close(): Promise<void> }> {
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', dataPlane: createDataPlane(server, { capture }) });
  return { base: `http://127.0.0.1:${http.port}`, close: () => http.close() };
}

const infer = (base: string, body: object) => fetch(`${base}/v2/models/ident/infer`, { method: 'POST', body: JSON.stringify(body) });

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(ok(), what);
}

test('each captured request sends a request and a response event, ce-id the request id, v2 JSON bodies', async () => {
  const rx = await receiver(() => 200);
  const capture = await createCapture(parseCaptureConfig([`url=${rx.url}`, 'source=/test/capture'])!);
  const fe = await front(capture);
  try {
    assert.equal((await infer(fe.base, { id: 'req-1', inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 2], data: [1, 2] }] })).status, 200);
    assert.equal((await infer(fe.base, { id: 'req-2', inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 1], data: [1] }] })).status, 400);
    await until('four events delivered', () => rx.got.length === 4 && capture.counts().written.url === 4);
    const byType = (id: string, type: string) => rx.got.find((e) => e.headers['ce-id'] === id && e.headers['ce-type'] === type)!;
    const req = byType('req-1', REQUEST_EVENT);
    assert.equal(req.headers['ce-specversion'], '1.0');
    assert.equal(req.headers['ce-source'], '/test/capture');
    assert.equal(req.headers['ce-inferenceservicename'], 'ident');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.ok(!Number.isNaN(Date.parse(String(req.headers['ce-time']))));
    assert.deepEqual(JSON.parse(req.body), { id: 'req-1', inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 2], data: [1, 2] }] });
    const res = byType('req-1', RESPONSE_EVENT);
    assert.equal(res.headers['ce-tributarycapture'], req.headers['ce-tributarycapture']);
    assert.deepEqual(JSON.parse(res.body), { model_name: 'ident', model_version: '1', id: 'req-1', outputs: [{ name: 'OUT', datatype: 'FP32', shape: [1, 2], data: [1, 2] }] });
    // A failed request: its response event carries the error, as the HTTP front end answered it.
    assert.match(JSON.parse(byType('req-2', RESPONSE_EVENT).body).error, /INT32|FP32|datatype/);
  } finally {
    await fe.close();
    await capture.close();
    await rx.close();
  }
});

test('a receiver answering 503 gets the event again; one answering 400 does not', async () => {
  const rx = await receiver((n) => (n === 0 ? 503 : n === 2 ? 400 : 200));
  const capture = await createCapture(parseCaptureConfig([`url=${rx.url}`])!);
  const fe = await front(capture);
  try {
    await infer(fe.base, { id: 'again', inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 1], data: [3] }] });
    await until('both events settle', () => (capture.counts().written.url ?? 0) + (capture.counts().dropped.url ?? 0) === 2);
    assert.equal(capture.counts().written.url, 1, 'the first event, delivered on its second try');
    assert.equal(capture.counts().dropped.url, 1, 'the second, refused with 400, is not retried');
  } finally {
    await fe.close();
    await capture.close();
    await rx.close();
  }
});

test('a receiver that never answers does not slow requests: events past the bound are dropped and counted', async () => {
  const rx = await receiver(() => 'hang');
  const capture = await createCapture(parseCaptureConfig([`url=${rx.url}`, 'queue=2'])!);
  const fe = await front(capture);
  try {
    const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => infer(fe.base, { id: `h${i}`, inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 1], data: [i] }] }).then((r) => r.status)));
    assert.deepEqual(new Set(statuses), new Set([200]));
    await until('the events that found no room are counted', () => (capture.counts().dropped.url ?? 0) >= 60 - 4 - 2);
    assert.equal(capture.counts().captured, 30, 'every request was captured');
    assert.equal(capture.counts().written.url ?? 0, 0);
  } finally {
    await fe.close();
    await rx.close();
    await capture.close();
  }
});
