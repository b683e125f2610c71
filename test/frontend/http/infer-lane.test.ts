/**
 * The socket lane (src/frontend/http/infer-lane.ts) on a real server and real sockets: it answers
 * ordinary /infer requests as node's path does, hands a connection to node at its first other
 * request with the bytes not yet consumed (pipelined requests included, in order), reads requests
 * that arrive in pieces, bounds the time to a head, a request and an idle connection, and closes
 * its connections when the server closes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '../../../src/server/index.js';
import { startHttpServer, type HttpServerHandle, type HttpServerOptions } from '../../../src/frontend/http/index.js';
import { inferLaneOf, type InferLane } from '../../../src/frontend/http/infer-lane.js';
import { encodeInferRequest } from '../../../src/protocol/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import type { Server } from '../../../src/server/types.js';

const FIXTURE = new URL('../../fixtures/http', import.meta.url).pathname;

let repo: string;
let server: Server;

before(async () => {
  repo = mkdtempSync(join(tmpdir(), 'tributary-lane-'));
  cpSync(FIXTURE, repo, { recursive: true });
  server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
});

after(async () => {
  await server.close();
  rmSync(repo, { recursive: true, force: true });
});

interface Served { http: HttpServerHandle; lane: InferLane }

async function serve(options: Partial<HttpServerOptions> = {}): Promise<Served> {
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', ...options });
  return { http, lane: inferLaneOf(http.app.server)! };
}

interface Answer { status: number; headers: Record<string, string>; body: Buffer }

/** A raw client: what it writes goes out as is; answers are read off the byte stream in order. */
class RawClient {
  readonly socket: Socket;
  #bytes = Buffer.alloc(0);
  #waiting: (() => void) | undefined;
  closed: Promise<void>;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (d: Buffer) => {
      this.#bytes = Buffer.concat([this.#bytes, d]);
      this.#waiting?.();
    });
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.once('close', () => this.#waiting?.());
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next whole answer, or undefined when the connection closed first. */
  async answer(): Promise<Answer | undefined> {
    for (;;) {
      const end = this.#bytes.indexOf('\r\n\r\n');
      if (end !== -1) {
        const [line, ...fields] = this.#bytes.toString('latin1', 0, end).split('\r\n');
        const headers: Record<string, string> = {};
        for (const f of fields) headers[f.slice(0, f.indexOf(':')).toLowerCase()] = f.slice(f.indexOf(':') + 1).trim();
        const length = Number(headers['content-length'] ?? 0);
        if (this.#bytes.length >= end + 4 + length) {
          const body = this.#bytes.subarray(end + 4, end + 4 + length);
          this.#bytes = this.#bytes.subarray(end + 4 + length);
          return { status: Number(line!.split(' ')[1]), headers, body: Buffer.from(body) };
        }
      }
      if (this.socket.destroyed || this.socket.readableEnded) return undefined;
      await new Promise<void>((resolve) => (this.#waiting = resolve));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

const fp32 = (values: number[]) => ({ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: values });
const values = (k: number) => Array.from({ length: 16 }, (_, i) => i + k);

/** An infer request as bytes: JSON, `extra` header lines added. */
function inferRequest(k: number, extra: string[] = [], model = 'identity_fp32'): Buffer {
  const body = JSON.stringify({ id: `r${k}`, inputs: [fp32(values(k))] });
  return Buffer.from([`POST /v2/models/${model}/infer HTTP/1.1`, 'Host: x', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, ...extra, '', body].join('\r\n'));
}

const outputOf = (a: Answer) => (JSON.parse(a.body.toString()) as { id: string; outputs: { data: number[] }[] });

test('ordinary requests are answered by the lane as node\'s path answers them, compressed when the client accepts it', async () => {
  // A low threshold: the identity model's answers are compressed when the client accepts it.
  const lane = await serve({ compressThreshold: 64 });
  const node = await serve({ inferLane: false, compressThreshold: 64 });
  try {
    const enc = encodeInferRequest({
      inputs: [createTensor('INPUT0', 'FP32', [1, 16], values(3))],
      outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }],
    }, { binary: true });
    const binary = Buffer.concat([Buffer.from([
      'POST /v2/models/identity_fp32/versions/1/infer HTTP/1.1', `Inference-Header-Content-Length: ${enc.headerLength}`,
      'Content-Type: application/octet-stream', `Content-Length: ${(enc.body as Buffer).byteLength}`, '', '',
    ].join('\r\n')), enc.body as Buffer]);
    const requests = [
      inferRequest(1), binary, inferRequest(2, [], 'nope'), Buffer.from('POST /v2/models/identity_fp32/infer HTTP/1.1\r\nContent-Length: 5\r\n\r\n{"in"'),
      inferRequest(3, ['Accept-Encoding: gzip, deflate']), inferRequest(4, ['Accept-Encoding: deflate']), inferRequest(5, ['Accept-Encoding: gzip;q=0, br']),
      inferRequest(6, ['Accept-Encoding: gzip'], 'nope'),
    ];
    for (const request of requests) {
      const a = new RawClient(lane.http.port);
      const b = new RawClient(node.http.port);
      a.write(request);
      b.write(request);
      const [x, y] = [(await a.answer())!, (await b.answer())!];
      assert.equal(x.status, y.status);
      assert.deepEqual(x.body, y.body);
      for (const h of ['content-type', 'content-length', 'inference-header-content-length', 'connection', 'keep-alive', 'content-encoding', 'vary']) assert.equal(x.headers[h], y.headers[h], h);
      assert.ok(x.headers.date, 'a Date header');
      a.close();
      b.close();
    }
    assert.equal(lane.lane.served, requests.length);
    // The cases above did compress: one of gzip and one of deflate.
    const encodings = [];
    for (const request of [inferRequest(3, ['Accept-Encoding: gzip, deflate']), inferRequest(4, ['Accept-Encoding: deflate'])]) {
      const c = new RawClient(lane.http.port);
      c.write(request);
      encodings.push((await c.answer())!.headers['content-encoding']);
      c.close();
    }
    assert.deepEqual(encodings, ['gzip', 'deflate']);
    assert.equal(lane.lane.handedOver, 0);
    assert.equal(inferLaneOf(node.http.app.server), undefined);
  } finally {
    await lane.http.close();
    await node.http.close();
  }
});

test('pipelined requests are answered in order; at the first other request node takes the connection, bytes not yet read included', async () => {
  const { http, lane } = await serve();
  try {
    const c = new RawClient(http.port);
    const health = Buffer.from('GET /v2/health/ready HTTP/1.1\r\nHost: x\r\n\r\n');
    // Two of the lane's, then a GET, then infers node now serves, the last split mid-body.
    const third = inferRequest(3);
    c.write(Buffer.concat([inferRequest(1), inferRequest(2), health, third.subarray(0, third.length - 7)]));
    await new Promise((r) => setTimeout(r, 50));
    c.write(Buffer.concat([third.subarray(third.length - 7), inferRequest(4)]));
    const answers: Answer[] = [];
    for (let i = 0; i < 5; i++) answers.push((await c.answer())!);
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200]);
    assert.deepEqual([0, 1, 3, 4].map((i) => outputOf(answers[i]!).id), ['r1', 'r2', 'r3', 'r4']);
    assert.deepEqual(outputOf(answers[4]!).outputs[0]!.data, values(4));
    assert.equal(lane.served, 2);
    assert.equal(lane.handedOver, 1);
    c.close();
  } finally {
    await http.close();
  }
});

test('a request that arrives a few bytes at a time is read whole', async () => {
  const { http, lane } = await serve();
  try {
    const c = new RawClient(http.port);
    const request = inferRequest(7);
    for (let at = 0; at < request.length; at += 23) {
      c.write(request.subarray(at, at + 23));
      await new Promise((r) => setTimeout(r, 2));
    }
    const a = (await c.answer())!;
    assert.equal(a.status, 200);
    assert.deepEqual(outputOf(a).outputs[0]!.data, values(7));
    assert.equal(lane.served, 1);
    c.close();
  } finally {
    await http.close();
  }
});

test('more than the bound of pipelined bytes waiting behind a running request: reading pauses, and every request is answered in order', async () => {
  const { http, lane } = await serve();
  try {
    const c = new RawClient(http.port);
    // The first runs for 3 s ('slow'); behind it, 1.5 MiB of requests.
    const slow = JSON.stringify({ id: 'slow', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1], data: [1] }] });
    c.write(`POST /v2/models/slow/infer HTTP/1.1\r\nContent-Length: ${slow.length}\r\n\r\n${slow}`);
    const n = Math.ceil(1.5 * 1024 * 1024 / inferRequest(0).length);
    const rest = Buffer.concat(Array.from({ length: n }, (_, k) => inferRequest(k)));
    c.write(rest);
    assert.equal(outputOf((await c.answer())!).id, 'slow');
    for (let k = 0; k < n; k++) assert.equal(outputOf((await c.answer())!).id, `r${k}`);
    assert.equal(lane.served, n + 1);
    c.close();
  } finally {
    await http.close();
  }
});

test('Connection: close is answered, then the connection closes; what follows it is not read', async () => {
  const { http, lane } = await serve();
  try {
    const c = new RawClient(http.port);
    c.write(Buffer.concat([inferRequest(1, ['Connection: close']), inferRequest(2)]));
    const a = (await c.answer())!;
    assert.equal(a.status, 200);
    assert.equal(a.headers.connection, 'close');
    assert.equal(await c.answer(), undefined);
    await c.closed;
    assert.equal(lane.served, 1);
  } finally {
    await http.close();
  }
});

test('a head or a body that does not arrive in time gets node\'s 408 in our words, and the connection closes', async () => {
  const { http } = await serve({ headerTimeoutMs: 300, requestTimeoutMs: 600 });
  try {
    const silent = new RawClient(http.port);
    const head = new RawClient(http.port);
    const body = new RawClient(http.port);
    head.write('POST /v2/models/identity_fp32/infer HTTP/1.1\r\nContent-Le');
    body.write(inferRequest(1).subarray(0, -5));
    for (const [c, what] of [[silent, 'line and headers'], [head, 'line and headers'], [body, 'body']] as const) {
      const a = (await c.answer())!;
      assert.equal(a.status, 408);
      assert.match(JSON.parse(a.body.toString()).error, new RegExp(`the request's ${what} did not arrive within`));
      await c.closed;
    }
  } finally {
    await http.close();
  }
});

test('an idle connection closes after the keep-alive timeout', async () => {
  const { http } = await serve();
  try {
    http.app.server.keepAliveTimeout = 300;
    const c = new RawClient(http.port);
    c.write(inferRequest(1));
    assert.equal((await c.answer())!.headers['keep-alive'], 'timeout=0');
    const started = performance.now();
    await c.closed;
    assert.ok(performance.now() - started < 5000);
  } finally {
    await http.close();
  }
});

test('what the lane does not frame with certainty is node\'s, whose parser refuses it', async () => {
  const { http, lane } = await serve();
  try {
    const cases: [string, string, number][] = [
      ['Content-Length and Transfer-Encoding', 'POST /v2/models/identity_fp32/infer HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
      ['two Content-Lengths', 'POST /v2/models/identity_fp32/infer HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n{}{}', 400],
      ['a bare LF', 'POST /v2/models/identity_fp32/infer HTTP/1.1\r\nContent-Length: 2\nX: y\r\n\r\n{}', 400],
      ['headers past node\'s limit', `POST /v2/models/identity_fp32/infer HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`, 431],
    ];
    for (const [why, request, status] of cases) {
      const c = new RawClient(http.port);
      c.write(request);
      const a = await c.answer();
      assert.equal(a?.status, status, why);
      c.close();
    }
    assert.equal(lane.served, 0);
    assert.equal(lane.handedOver, cases.length);
  } finally {
    await http.close();
  }
});

test('closing the server closes the lane\'s idle connections at once and lets a running request finish', async () => {
  const { http, lane } = await serve();
  const idle = new RawClient(http.port);
  idle.write(inferRequest(1));
  assert.equal((await idle.answer())!.status, 200);
  const busy = new RawClient(http.port);
  const slow = JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1], data: [1] }] });
  busy.write(`POST /v2/models/slow/infer HTTP/1.1\r\nContent-Length: ${slow.length}\r\n\r\n${slow}`);
  await new Promise((r) => setTimeout(r, 200));
  const started = performance.now();
  const closing = http.close(10_000);
  await idle.closed;
  assert.ok(performance.now() - started < 1000, 'the idle connection closed at once');
  const a = (await busy.answer())!;
  assert.equal(a.status, 200);
  assert.equal(a.headers.connection, 'close');
  await closing;
  assert.equal(lane.served, 2);
});

test('mangled requests (bytes flipped, cut, CR and LF put in) never cost the server: each gets an answer or a closed connection, and a good request still works', async () => {
  const { http, lane } = await serve({ headerTimeoutMs: 1000, requestTimeoutMs: 1000 });
  try {
    // A fixed-seed generator: the same 120 mangled requests every run.
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const good = inferRequest(5);
    const mangle = (): Buffer => {
      const b = Buffer.from(good);
      switch (random(4)) {
        case 0: for (let i = 0; i < 3; i++) b[random(b.length)] = random(256); return b;
        case 1: return b.subarray(0, random(b.length));
        case 2: { const at = random(b.length); return Buffer.concat([b.subarray(0, at), Buffer.from(random(2) ? '\r\n' : '\n'), b.subarray(at)]); }
        default: { const at = random(b.length); return Buffer.concat([b.subarray(0, at), Buffer.from([0x0d]), b.subarray(at + 1)]); }
      }
    };
    const outcomes = await Promise.all(Array.from({ length: 120 }, async () => {
      const c = new RawClient(http.port);
      c.write(mangle());
      const a = await Promise.race([c.answer(), new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 3000))]);
      c.close();
      return a === 'waiting' ? 'waiting' : a === undefined ? 'closed' : a.status;
    }));
    assert.ok(!outcomes.includes('waiting'), 'every one answered or closed within the timeouts');
    assert.ok(outcomes.every((o) => o === 'closed' || (typeof o === 'number' && o >= 200 && o < 500)), `outcomes: ${outcomes.join(' ')}`);
    const c = new RawClient(http.port);
    c.write(inferRequest(9));
    assert.deepEqual(outputOf((await c.answer())!).outputs[0]!.data, values(9));
    c.close();
    assert.ok(lane.served > 0 && lane.handedOver > 0, `served ${lane.served}, handed over ${lane.handedOver}`);
  } finally {
    await http.close();
  }
});
