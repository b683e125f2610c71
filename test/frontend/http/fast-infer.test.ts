/**
 * The lean /infer path (src/frontend/http/fast-infer.ts) answers exactly as fastify's route does,
 * and hands every out-of-the-ordinary request to the route. Two real servers over the same
 * repository, one with the lean path and one without; an onRequest hook counts what reached
 * fastify, so each case also shows which path served it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createServer } from '../../../src/server/index.js';
import { buildHttpApp } from '../../../src/frontend/http/index.js';
import { parseRestrictions } from '../../../src/frontend/restrict/index.js';
import { encodeInferRequest } from '../../../src/protocol/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import { MAX_PARAM_LENGTH } from '../../../src/frontend/http/send-error.js';
import type { Server } from '../../../src/server/types.js';
import type { FastifyInstance } from 'fastify';

const FIXTURE = new URL('../../fixtures/http', import.meta.url).pathname;

interface Served { app: FastifyInstance; base: string; viaRoute: () => number }

let repo: string;
let server: Server;
let lean: Served;
let laned: Served;
let route: Served;
let restricted: Served;

async function serve(options: Parameters<typeof buildHttpApp>[1]): Promise<Served> {
  const app = buildHttpApp(server, options);
  let n = 0;
  app.addHook('onRequest', (_req, _reply, done) => { n++; done(); });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { app, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, viaRoute: () => n };
}

before(async () => {
  repo = mkdtempSync(join(tmpdir(), 'tributary-fast-infer-'));
  cpSync(FIXTURE, repo, { recursive: true });
  server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
  // The lean listener on node's server, without the socket lane in front of it (infer-lane.ts,
  // which answers the same requests on plain HTTP, is compared too).
  lean = await serve({ inferLane: false });
  laned = await serve({});
  route = await serve({ directInfer: false });
  restricted = await serve({ restrictions: parseRestrictions('http-restricted-api', ['inference:x-key=secret']) });
});

after(async () => {
  await Promise.all([lean.app.close(), laned.app.close(), route.app.close(), restricted.app.close()]);
  await server.close();
  rmSync(repo, { recursive: true, force: true });
});

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

function post(base: string, path: string, body: Buffer | string, headers: Record<string, string | number> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, { method: 'POST', headers: { 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The same request to both servers: identical status, body and the headers a client reads. */
async function same(path: string, body: Buffer | string, headers: Record<string, string | number> = {}): Promise<Answer> {
  const b = await post(route.base, path, body, headers);
  const answers = [await post(lean.base, path, body, headers), await post(laned.base, path, body, headers)];
  for (const a of answers) {
    assert.equal(a.status, b.status, `${path}: status`);
    assert.deepEqual(a.body, b.body, `${path}: body ${a.body.toString().slice(0, 200)} vs ${b.body.toString().slice(0, 200)}`);
    for (const h of ['content-type', 'content-length', 'inference-header-content-length', 'connection', 'content-encoding']) {
      assert.equal(a.headers[h], b.headers[h], `${path}: header ${h}`);
    }
  }
  return answers[0]!;
}

const json = (o: unknown) => JSON.stringify(o);
const fp32 = { name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: Array.from({ length: 16 }, (_, i) => i / 4) };

test('ordinary requests are served without fastify and answered exactly as the route answers them', async () => {
  const before = lean.viaRoute();
  const laneBefore = laned.viaRoute();
  // JSON in, JSON out; with and without a version; with and without a content type.
  await same('/v2/models/identity_fp32/infer', json({ id: 'a', inputs: [fp32] }), { 'content-type': 'application/json' });
  await same('/v2/models/identity_fp32/versions/1/infer', json({ inputs: [fp32] }));
  // Binary in, binary out, and a requested output in JSON.
  const enc = encodeInferRequest({
    inputs: [createTensor('INPUT0', 'FP32', [1, 16], Array.from({ length: 16 }, (_, i) => -i))],
    outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }],
  }, { binary: true });
  const bin = await same('/v2/models/identity_fp32/infer', enc.body as Buffer, { 'inference-header-content-length': enc.headerLength!, 'content-type': 'application/octet-stream' });
  assert.equal(bin.status, 200);
  assert.ok(Number(bin.headers['inference-header-content-length']) > 0);
  await same('/v2/models/identity_fp32/infer', json({ inputs: [fp32], outputs: [{ name: 'OUTPUT0', parameters: { binary_data: false } }] }), { 'content-type': 'text/plain;charset=UTF-8' });
  assert.equal(lean.viaRoute(), before, 'none of them reached fastify');
  assert.equal(laned.viaRoute(), laneBefore, 'none of them reached fastify behind the socket lane');
});

test('refusals on the lean path are the route\'s: status, words and headers', async () => {
  const before = lean.viaRoute();
  const unknown = await same('/v2/models/nope/infer', json({ inputs: [fp32] }));
  assert.ok(unknown.status >= 400 && unknown.status < 500, String(unknown.status));
  assert.match(JSON.parse(unknown.body.toString()).error as string, /nope/);
  await same('/v2/models/identity_fp32/infer', '{"inputs": [', { 'content-type': 'application/json' });
  await same('/v2/models/identity_fp32/infer', json({ inputs: [{ ...fp32, shape: [1, 15] }] }));
  await same('/v2/models/identity_fp32/infer', '');
  await same('/v2/models/identity_fp32/infer', json({ inputs: [fp32], outputs: [{ name: 'NOPE' }] }));
  assert.equal(lean.viaRoute(), before, 'none of them reached fastify');
  // A body past the limit is refused before it is read, and the connection closes after it.
  const small = await serve({ maxInputSize: 64 });
  try {
    const big = await post(small.base, '/v2/models/identity_fp32/infer', json({ inputs: [fp32] }));
    assert.equal(big.status, 400);
    assert.equal(big.headers.connection, 'close');
    assert.equal(small.viaRoute(), 0);
  } finally {
    await small.app.close();
  }
});

test('what is out of the ordinary goes to the route, which keeps every behaviour it has', async () => {
  const body = json({ inputs: [fp32] });
  const cases: [string, string, Record<string, string | number>, Buffer | string][] = [
    ['a client that accepts gzip', '/v2/models/identity_fp32/infer', { 'accept-encoding': 'gzip' }, body],
    ['a gzip body', '/v2/models/identity_fp32/infer', { 'content-encoding': 'gzip' }, gzipSync(body)],
    ['an event stream', '/v2/models/identity_fp32/infer', { accept: 'text/event-stream' }, body],
    ['a malformed content type', '/v2/models/identity_fp32/infer', { 'content-type': ';;;=' }, body],
    ['a percent-encoded name', '/v2/models/identity%5Ffp32/infer', {}, body],
    ['a query string', '/v2/models/identity_fp32/infer?x=1', {}, body],
    // Paths that are not `<model>` or `<model>/versions/<version>`: the route's 404s.
    ['an empty model name', '/v2/models//infer', {}, body],
    ['two segments', '/v2/models/identity_fp32/1/infer', {}, body],
    ['versions without a version', '/v2/models/identity_fp32/versions/infer', {}, body],
    ['an empty version', '/v2/models/identity_fp32/versions//infer', {}, body],
    ['a segment after the version', '/v2/models/identity_fp32/versions/1/x/infer', {}, body],
    ['not versions', '/v2/models/identity_fp32/version/1/infer', {}, body],
  ];
  for (const [what, path, headers, b] of cases) {
    const [n, m] = [lean.viaRoute(), laned.viaRoute()];
    const a = await same(path, b, headers);
    assert.equal(lean.viaRoute(), n + 1, `${what}: served by the route`);
    // The socket lane compresses answers as the route does: a client that accepts gzip stays on it.
    const laneServes = what === 'a client that accepts gzip';
    assert.equal(laned.viaRoute(), laneServes ? m : m + 1, `${what}: ${laneServes ? 'the socket lane' : 'the route behind the socket lane'}`);
    assert.ok(a.status < 500, `${what}: ${a.status}`);
  }
  // The lean path's own reading of names: a version, and a name at the bound; past the bound the
  // answer is the router's own (414, which no route hook sees).
  const n = lean.viaRoute();
  await same('/v2/models/identity_fp32/versions/1/infer', body);
  await same(`/v2/models/${'m'.repeat(MAX_PARAM_LENGTH)}/infer`, body);
  assert.equal(lean.viaRoute(), n);
  assert.equal((await same(`/v2/models/${'m'.repeat(MAX_PARAM_LENGTH + 1)}/infer`, body)).status, 414);
});

test('with the inference category restricted, the right header takes the lean path and a wrong one is refused by the route', async () => {
  const body = json({ inputs: [fp32] });
  const n = restricted.viaRoute();
  const ok = await post(restricted.base, '/v2/models/identity_fp32/infer', body, { 'x-key': 'secret' });
  assert.equal(ok.status, 200);
  assert.equal(restricted.viaRoute(), n);
  const refused = await post(restricted.base, '/v2/models/identity_fp32/infer', body, { 'x-key': 'guess' });
  assert.equal(refused.status, 403);
  assert.equal(restricted.viaRoute(), n + 1);
});
