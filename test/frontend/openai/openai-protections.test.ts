/**
 * The protections of the rest of the HTTP front end hold for /v1: the `openai` category of
 * --http-restricted-api, the body size bound, the request bounds of the OpenAI front end, and a
 * front end that serves the OpenAI API alone (--openai-port). Real servers on loopback, the
 * official client where it can send the request.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startHttpServer, type HttpServerHandle } from '../../../src/frontend/http/index.js';
import { parseRestrictions } from '../../../src/frontend/restrict/index.js';
import { StreamBudget } from '../../../src/frontend/stream/index.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { quietLog } from '../../helpers/quiet-log.js';
import { eventually } from '../../helpers/stream-senders.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { openAiRepo } from './openai-repo.js';

quietLog([/openai/i]);

const KEY = 'x-openai-key';
const SECRET = `s3cret-${process.pid}`;
let repo: TempRepo;
let server: Server;
let guarded: HttpServerHandle;
let alone: HttpServerHandle;

before(async () => {
  repo = openAiRepo();
  server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['gen', 'emb'] });
  guarded = await startHttpServer(server, {
    port: 0, host: '127.0.0.1', maxInputSize: 4096,
    restrictions: parseRestrictions('http-restricted-api', [`openai:${KEY}=${SECRET}`]),
    openai: { maxMessages: 3, maxPromptChars: 100, maxEmbeddingInputs: 2 },
  });
  alone = await startHttpServer(server, {
    port: 0, host: '127.0.0.1', apis: 'openai', openai: { maxTokens: 1_000_000 },
    streamBudget: new StreamBudget({ streamBytes: 64 * 1024, totalBytes: 64 * 2 ** 20 }),
  });
});
after(async () => {
  await guarded.close();
  await alone.close();
  await server.close();
  repo.remove();
});

const url = (h: HttpServerHandle, path: string) => `http://127.0.0.1:${h.port}${path}`;
const clientOf = (h: HttpServerHandle, headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: url(h, '/v1'), apiKey: 'unused', maxRetries: 0, defaultHeaders: headers });

async function post(path: string, body: string): Promise<{ status: number; json: any }> {
  const res = await fetch(url(guarded, path), { method: 'POST', headers: { 'content-type': 'application/json', [KEY]: SECRET }, body });
  return { status: res.status, json: await res.json() };
}

test('the openai category demands its header on every /v1 route, in OpenAI\'s shape, and nowhere else', async () => {
  const open = clientOf(guarded);
  await assert.rejects(open.models.list(), (e: any) => e instanceof OpenAI.PermissionDeniedError && e.type === 'permission_error');
  await assert.rejects(open.chat.completions.create({ model: 'gen', messages: [{ role: 'user', content: 'x' }] }), (e: any) => e.status === 403);
  await assert.rejects(open.embeddings.create({ model: 'emb', input: 'x' }), (e: any) => e.status === 403);
  await assert.rejects(clientOf(guarded, { [KEY]: 'wrong' }).models.list(), (e: any) => e.status === 403 && !String(e.message).includes(SECRET));
  const ok = clientOf(guarded, { [KEY]: SECRET });
  assert.equal((await ok.chat.completions.create({ model: 'gen', messages: [{ role: 'user', content: 'x' }] })).choices[0]!.message.content, 'w0 w1 w2 w3 w4');
  assert.equal((await fetch(url(guarded, '/v2/health/ready'))).status, 200, 'KServe v2 stays open');
  assert.equal((await fetch(url(guarded, '/v2/models/gen'))).status, 200);
});

test('a body past --http-max-input-size is refused as on /v2, in OpenAI\'s shape', async () => {
  const big = JSON.stringify({ model: 'gen', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
  const r = await post('/v1/chat/completions', big);
  const v2 = await fetch(url(guarded, '/v2/models/gen/generate'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
  assert.ok(r.status >= 400 && r.status < 500);
  assert.equal(r.status, v2.status, 'the same status as the rest of the HTTP front end');
  assert.equal(r.json.error.code, 'TRB_HTTP_INPUT_TOO_LARGE');
  assert.equal(r.json.error.type, 'invalid_request_error');
});

test('messages, prompt length and embedding inputs are bounded', async () => {
  const m = (n: number, content = 'x') => Array.from({ length: n }, () => ({ role: 'user', content }));
  let r = await post('/v1/chat/completions', JSON.stringify({ model: 'gen', messages: m(4) }));
  assert.equal(r.status, 400);
  assert.equal(r.json.error.param, 'messages');
  assert.equal(r.json.error.code, 'TRB_OPENAI_LIMIT');
  r = await post('/v1/chat/completions', JSON.stringify({ model: 'gen', messages: m(1, 'y'.repeat(95)) }));
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /rendered by the chat template has length 112; at most 100/);
  r = await post('/v1/completions', JSON.stringify({ model: 'gen', prompt: 'z'.repeat(101) }));
  assert.equal(r.json.error.param, 'prompt');
  r = await post('/v1/embeddings', JSON.stringify({ model: 'emb', input: ['a', 'b', 'c'] }));
  assert.equal(r.json.error.param, 'input');
  assert.match(r.json.error.message, /has 3; at most 2/);
});

test('apis: openai (--openai-port) serves /v1 and nothing else', async () => {
  const client = clientOf(alone);
  const ids = (await client.models.list()).data.map((m) => m.id);
  assert.deepEqual(ids, ['emb', 'gen']);
  assert.equal((await client.completions.create({ model: 'gen', prompt: 'p', max_tokens: 2 })).choices[0]!.text, 'w0 w1');
  const v2 = await fetch(url(alone, '/v2/health/ready'));
  assert.equal(v2.status, 404);
  assert.equal((await v2.json() as any).error.code, 'TRB_HTTP_NO_ROUTE');
});

test('a client that does not read holds the model back (backpressure); leaving cancels it', async () => {
  const client = clientOf(alone);
  const stats = async (): Promise<{ cancelled: number; completed: number; sent: number }> =>
    JSON.parse((await client.chat.completions.create({ model: 'gen', messages: [{ role: 'user', content: '__stats__' }] })).choices[0]!.message.content!);
  const before = await stats();
  const WORDS = 500_000;
  const req = request({ host: '127.0.0.1', port: alone.port, path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json' } },
    (res) => res.pause());
  req.on('error', () => undefined);
  req.end(JSON.stringify({ model: 'gen', messages: [{ role: 'user', content: 'hi' }], max_tokens: WORDS, stream: true }));
  // The script awaits each send: once the socket and the stream's account are full it waits.
  let last = -1;
  await eventually(async () => {
    await new Promise((r) => setTimeout(r, 300));
    const now = (await stats()).sent;
    const settled = now === last && now > before.sent;
    last = now;
    return settled;
  }, 30_000);
  assert.ok(last - before.sent < WORDS / 2, `${last - before.sent} of ${WORDS} words sent to a client that reads nothing`);
  req.destroy();
  await eventually(async () => (await stats()).cancelled > before.cancelled, 10_000);
  assert.equal((await stats()).completed, before.completed);
});
