/**
 * The OpenAI-compatible front end against the official `openai` client, over a real server on
 * loopback (real HTTP front end, real TypeScript models in isolates): listing, plain and streamed
 * chat and completions, field mapping, stop strings, embeddings in both encodings, a pipeline
 * that streams, errors in OpenAI's shape, and a client that leaves mid-stream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startHttpServer, type HttpServerHandle } from '../../../src/frontend/http/index.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { eventually } from '../../helpers/stream-senders.js';
import { quietLog } from '../../helpers/quiet-log.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { openAiRepo } from './openai-repo.js';

quietLog([/openai|cancel/i]);

let repo: TempRepo;
let server: Server;
let http: HttpServerHandle;
let client: OpenAI;
let base: string;

before(async () => {
  repo = openAiRepo();
  server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['*'] });
  http = await startHttpServer(server, { port: 0, host: '127.0.0.1', openai: { maxN: 4 } });
  base = `http://127.0.0.1:${http.port}`;
  client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'unused', maxRetries: 0 });
});
after(async () => {
  await http.close();
  await server.close();
  repo.remove();
});

/** A raw POST, for what the client would not send. */
async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

const stats = async (): Promise<{ cancelled: number; completed: number }> => {
  const r = await client.chat.completions.create({ model: 'gen', messages: [{ role: 'user', content: '__stats__' }] });
  return JSON.parse(r.choices[0]!.message.content!);
};

describe('models', () => {
  test('the list holds the ready models that declare the API, and only those', async () => {
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    assert.deepEqual(ids, ['emb', 'gen', 'plain', 'relay']);
    const one = await client.models.retrieve('gen');
    assert.equal(one.object, 'model');
    assert.equal(one.owned_by, 'tributary');
  });

  test('a model that does not declare the API is not found, as an unknown one', async () => {
    for (const id of ['hidden', 'nope']) {
      await assert.rejects(client.models.retrieve(id), (e: any) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found');
    }
  });
});

describe('chat and completions', () => {
  test('a chat completion gathers a decoupled model\'s words, with finish_reason and usage', async () => {
    const r = await client.chat.completions.create({ model: 'gen', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.object, 'chat.completion');
    assert.equal(r.choices[0]!.message.role, 'assistant');
    assert.equal(r.choices[0]!.message.content, 'w0 w1 w2 w3 w4');
    assert.equal(r.choices[0]!.finish_reason, 'length');
    assert.deepEqual(r.usage, { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 });
  });

  test('a streamed chat sends the role, one delta per word, a finish_reason, usage, and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'gen', messages: [{ role: 'user', content: 'hi' }], stream: true, max_tokens: 4, stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    let role: string | undefined;
    let finish: string | null | undefined;
    let usage: unknown;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const c = chunk.choices[0];
      if (!c) continue;
      role ??= c.delta.role;
      if (c.delta.content) deltas.push(c.delta.content);
      if (c.finish_reason) finish = c.finish_reason;
    }
    assert.equal(role, 'assistant');
    assert.deepEqual(deltas, ['w0', ' w1', ' w2', ' w3']);
    assert.equal(finish, 'length');
    assert.deepEqual(usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  });

  test('a pipeline whose last step is decoupled streams word by word too', async () => {
    const stream = await client.chat.completions.create({ model: 'relay', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const deltas: string[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
    assert.equal(deltas.length, 5);
    assert.equal(deltas.join(''), 'w0 w1 w2 w3 w4');
  });

  test('messages are rendered by the model\'s chat template; fields become its inputs, else parameters', async () => {
    const r = await client.chat.completions.create({
      model: 'plain', temperature: 0.5, seed: 7, max_tokens: 9, stop: ['zy'], top_p: 0.9, user: 'ignored-too',
      messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }],
      // unknown fields are ignored, as OpenAI's API allows
      ...({ some_future_field: { x: 1 } } as object),
    });
    const seen = JSON.parse(r.choices[0]!.message.content!);
    assert.equal(seen.prompt, '<system>be brief<user>ab<assistant>');
    assert.deepEqual(seen.parameters, { temperature: 0.5, seed: 7, top_p: 0.9 });
    assert.deepEqual(seen.max_tokens, [9]);
    assert.deepEqual(seen.stop, ['yz'], 'the model saw the stop strings (it echoes them reversed)');
    assert.equal(r.usage, undefined, 'a model that reports no counts has no usage');
  });

  test('completions: one choice per prompt and n, echo, plain and streamed', async () => {
    const r = await client.completions.create({ model: 'gen', prompt: ['p', 'q'], n: 2, max_tokens: 2, echo: true });
    assert.equal(r.object, 'text_completion');
    assert.deepEqual(r.choices.map((c) => [c.index, c.text]), [[0, 'pw0 w1'], [1, 'pw0 w1'], [2, 'qw0 w1'], [3, 'qw0 w1']]);
    assert.deepEqual(r.usage, { prompt_tokens: 6, completion_tokens: 8, total_tokens: 14 }, 'a prompt counts once whatever n');
    const stream = await client.completions.create({ model: 'gen', prompt: 'p', max_tokens: 3, stream: true });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(text, 'w0 w1 w2');
    assert.equal(finish, 'length');
  });

  test('a stop string ends the text before it and stops the model\'s run', async () => {
    const before = await stats();
    const r = await client.chat.completions.create({ model: 'gen', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1000, stop: ['w3', 'never'] });
    assert.equal(r.choices[0]!.message.content, 'w0 w1 w2 ');
    assert.equal(r.choices[0]!.finish_reason, 'stop');
    // The run was cancelled at the stop rather than left to write its 1000 words.
    await eventually(async () => (await stats()).cancelled > before.cancelled);
    assert.equal((await stats()).completed, before.completed);
    // Streamed, a stop string split across words is held back until it is known.
    const stream = await client.chat.completions.create({ model: 'gen', messages: [{ role: 'user', content: 'hi' }], stop: ['1 w2'], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'w0 w');
  });

  test('a client that leaves mid-stream cancels the model\'s run', async () => {
    const before = await stats();
    const abort = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'gen', messages: [{ role: 'user', content: '__slow__' }], max_tokens: 2000, stream: true }, { signal: abort.signal });
    let deltas = 0;
    // The client ends its iteration quietly once its own signal aborts the request.
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content && ++deltas === 2) abort.abort();
    }
    assert.ok(deltas >= 2 && deltas < 100, `${deltas} deltas`);
    // The script sees it (its send rejects, or isCancelled): 2000 words at 10 ms would take 20 s.
    await eventually(async () => (await stats()).cancelled > before.cancelled, 10_000);
    assert.equal((await stats()).completed, before.completed);
  });

  test('every run passes the model\'s statistics, as /infer requests do', async () => {
    const count = () => server.modelStatistics('plain').model_stats[0]!.inference_stats.success.count;
    const before = count();
    await client.chat.completions.create({ model: 'plain', messages: [{ role: 'user', content: 'x' }], n: 3 });
    assert.equal(count(), before + 3);
  });
});

describe('embeddings', () => {
  test('two inputs give two vectors of one length; float and base64 decode to the same values', async () => {
    const input = ['banana', 'a cat'];
    const f = await client.embeddings.create({ model: 'emb', input, encoding_format: 'float' });
    assert.equal(f.object, 'list');
    assert.deepEqual(f.data.map((d) => d.embedding), [[6, 3, 1.5], [5, 2, 1.5]]);
    assert.deepEqual(f.usage, { prompt_tokens: 4, total_tokens: 4 });
    // The client asks for base64 unless told otherwise, and decodes it.
    const b = await client.embeddings.create({ model: 'emb', input });
    assert.deepEqual(b.data.map((d) => d.embedding), f.data.map((d) => d.embedding));
    const raw = await post('/v1/embeddings', { model: 'emb', input: 'aa', encoding_format: 'base64' });
    assert.deepEqual([...new Float32Array(Uint8Array.from(Buffer.from(raw.json.data[0].embedding, 'base64')).buffer)], [2, 2, 1.5]);
  });
});

describe('errors, in OpenAI\'s shape', () => {
  test('an unknown model is 404 model_not_found', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
      (e: any) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found' && e.param === 'model' && e.type === 'invalid_request_error');
    const r = await post('/v1/embeddings', { model: 'nope', input: 'x' });
    assert.equal(r.status, 404);
    assert.deepEqual(Object.keys(r.json.error).sort(), ['code', 'message', 'param', 'type']);
  });

  test('wrong types and bounds are 400 naming the param', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ model: 'gen', messages: [{ role: 'user', content: 'x' }], temperature: 'hot' }, 'temperature', /must be a number/],
      [{ model: 'gen', messages: [{ role: 'user', content: 'x' }], temperature: 3 }, 'temperature', /between 0 and 2/],
      [{ model: 'gen', messages: 'hi' }, 'messages', /must be a list/],
      [{ model: 'gen', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role', /must be one of/],
      [{ model: 'gen', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }, 'messages[0].content[0].type', /not supported/],
      [{ model: 'gen', messages: [{ role: 'user', content: 'x' }], n: 5 }, 'n', /at most 4/],
      [{ model: 'gen', messages: [{ role: 'user', content: 'x' }], max_tokens: 5000 }, 'max_tokens', /at most 4096 \(--openai-max-tokens\)/],
      [{ model: 'gen', messages: [{ role: 'user', content: 'x' }], stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop', /at most 4/],
      [{ model: 'gen', messages: [{ role: 'user', content: 'x' }], stop: ['x'.repeat(257)] }, 'stop[0]', /at most 256/],
      [{ model: 'gen', messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, 'stream', /must be a boolean/],
      [{ model: 7, messages: [] }, 'model', /must be a string/],
      [{ model: 'gen', prompt: [1, 2, 3] }, 'prompt', /token arrays are not supported/],
      [{ model: 'emb', messages: [{ role: 'user', content: 'x' }] }, 'model', /does not serve chat completions; it serves embeddings/],
    ];
    for (const [body, param, message] of cases) {
      const path = (body as { prompt?: unknown }).prompt ? '/v1/completions' : '/v1/chat/completions';
      const r = await post(path, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error.param, param, JSON.stringify(r.json));
      assert.equal(r.json.error.type, 'invalid_request_error');
      assert.match(r.json.error.message, message);
    }
    const e = await post('/v1/embeddings', { model: 'emb', input: ['ok', ''] });
    assert.equal(e.json.error.param, 'input[1]');
    await assert.rejects(client.embeddings.create({ model: 'emb', input: 'x', encoding_format: 'hex' as 'float' }), (x: any) => x.status === 400 && x.param === 'encoding_format');
  });

  test('malformed JSON, a body that is not an object and an unknown /v1 path answer in the same shape', async () => {
    const bad = await post('/v1/chat/completions', '{"model": ');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.type, 'invalid_request_error');
    assert.match(bad.json.error.code, /^TRB_/);
    const arr = await post('/v1/chat/completions', '[1]');
    assert.equal(arr.json.error.param, 'body');
    const none = await fetch(`${base}/v1/nothing`);
    assert.equal(none.status, 404);
    assert.equal((await none.json() as any).error.code, 'TRB_HTTP_NO_ROUTE');
  });
});
