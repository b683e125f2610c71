/**
 * examples/openai as its README shows it: `tributary serve --model-repository examples/openai`
 * in a child process, called with the official `openai` client over the HTTP port and over
 * --openai-port. The models are the example's own (a Markov word chain, two embedders): the
 * assertions hold for any text they give, and the Markov chain's own behaviour is checked in
 * process below.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { LOOPBACK, startServe, type Served } from '../helpers/tributary-process.js';
import { buildChain, firstWord, nextWord, seededRandom } from '../../examples/openai/markov-chat/1/markov.js';
import { hashedNgrams } from '../../examples/openai/ngram-embedding/1/hashed-ngrams.js';

let served: Served;
let client: OpenAI;
let openaiPort: number;

before(async () => {
  served = await startServe(['--model-repository', 'examples/openai', ...LOOPBACK, '--openai-port', '0'], 60_000);
  client = new OpenAI({ baseURL: `http://127.0.0.1:${served.http}/v1`, apiKey: 'unused', maxRetries: 0 });
  openaiPort = Number(/OpenAI-compatible API listening on 127\.0\.0\.1:(\d+)\/v1/.exec(served.log())?.[1]);
});
after(async () => {
  await served?.stop();
});

test('the client lists the example models on both ports', async () => {
  const ids = (await client.models.list()).data.map((m) => m.id);
  assert.deepEqual(ids, ['lande-embedding', 'markov-chat', 'ngram-embedding']);
  assert.ok(openaiPort > 0, served.log());
  const other = new OpenAI({ baseURL: `http://127.0.0.1:${openaiPort}/v1`, apiKey: 'unused', maxRetries: 0 });
  assert.deepEqual((await other.models.list()).data.map((m) => m.id), ids);
});

test('a chat completion is non-empty; streamed, it comes as several deltas and a finish_reason', async () => {
  const r = await client.chat.completions.create({ model: 'markov-chat', messages: [{ role: 'user', content: 'Tell me about the river' }] });
  assert.ok(r.choices[0]!.message.content!.trim().length > 0);
  assert.match(r.choices[0]!.finish_reason, /^(stop|length)$/);
  const stream = await client.chat.completions.create({ model: 'markov-chat', messages: [{ role: 'user', content: 'What is a tributary?' }], stream: true, seed: 1 });
  let deltas = 0;
  let finish: string | null = null;
  for await (const chunk of stream) {
    if (chunk.choices[0]?.delta.content) deltas++;
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.ok(deltas >= 2, `${deltas} deltas`);
  assert.match(String(finish), /^(stop|length)$/);
});

test('max_tokens reaches the model (a declared input): the answer stops at that many words', async () => {
  const r = await client.completions.create({ model: 'markov-chat', prompt: 'water', max_tokens: 3, seed: 5 });
  assert.equal(r.choices[0]!.finish_reason, 'length');
  assert.equal(r.usage?.completion_tokens, 3);
});

test('two inputs give two embeddings of one length, from both embedding models', async () => {
  for (const [model, length] of [['lande-embedding', 50], ['ngram-embedding', 256]] as const) {
    const r = await client.embeddings.create({ model, input: ['The river reaches the sea.', 'Le fleuve rejoint la mer.'] });
    assert.equal(r.data.length, 2);
    assert.equal(r.data[0]!.embedding.length, length);
    assert.equal(r.data[1]!.embedding.length, length);
    const norm = Math.hypot(...r.data[0]!.embedding);
    assert.ok(Math.abs(norm - 1) < 1e-4, `${model}: unit length, got ${norm}`);
  }
});

test('lande-embedding places two texts of one language closer than texts of two', async () => {
  const r = await client.embeddings.create({
    model: 'lande-embedding', input: ['The water runs down the hill to the sea.', 'Birds follow the fish along the banks.', 'Das Wasser fliesst den Berg hinunter zum Meer.'],
  });
  const [en1, en2, de] = r.data.map((d) => d.embedding);
  const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  assert.ok(dot(en1!, en2!) > dot(en1!, de!), `${dot(en1!, en2!)} vs ${dot(en1!, de!)}`);
});

test('an unknown model is a 404 in OpenAI\'s error shape', async () => {
  await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    (e: any) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found' && e.type === 'invalid_request_error');
});

test('the Markov chain walks its corpus: each next word followed the word before somewhere in it', () => {
  const corpus = readFileSync(new URL('../../examples/openai/markov-chat/corpus.txt', import.meta.url), 'utf8');
  const chain = buildChain(corpus);
  const random = seededRandom(42);
  let word = firstWord(chain, 'Tell me about the delta', random, new Set());
  assert.equal(word, 'delta', 'it begins from the last prompt word it knows');
  for (let i = 0; i < 50; i++) {
    const next = nextWord(chain, word, 1, random);
    if (next === undefined) break;
    assert.ok(chain.next.get(word)!.has(next));
    word = next;
  }
  assert.equal(nextWord(chain, 'a', 0, random), 'river', 'temperature 0 takes the most frequent successor');
});

test('hashed n-grams: shared words make vectors closer', () => {
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  const a = hashedNgrams('the river floods its banks', 256);
  const b = hashedNgrams('a river that floods', 256);
  const c = hashedNgrams('quantum chromodynamics', 256);
  assert.ok(dot(a, b) > dot(a, c));
  assert.ok(Math.abs(dot(a, a) - 1) < 1e-5);
});
