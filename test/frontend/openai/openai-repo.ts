/**
 * A repository of small models that declare the OpenAI API, for the front end's tests:
 * - `gen`: decoupled script, streams "w0 w1 ..." (max_tokens words, an input it declares; 5 by
 *   default), counts per response; a prompt with `__slow__` spins 10 ms before each word, and one
 *   with `__stats__` answers how many of its runs were cancelled and completed, and its words sent;
 * - `plain`: answers at once with JSON of what it received (the rendered prompt, its parameters,
 *   its max_tokens input, its stop input reversed), under a chat template of its own;
 * - `emb`: embeddings of 3 values: [length, count of 'a', 1.5];
 * - `relay`: a decoupled pipeline of one step, gen;
 * - `hidden`: a model that does not declare the OpenAI API.
 */
import { scriptRepo } from '../../backends/typescript/script-repo.js';
import type { TempRepo } from '../../helpers/temp-repo.js';

const GEN = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
let cancelled = 0;
let completed = 0;
let sent = 0;
const spin = (ms: number) => { const t = Date.now(); while (Date.now() - t < ms) { /* busy */ } };
const text = (s: string) => new Tensor('text_output', 'BYTES', [1], [s]);
export default class Model {
  execute(requests: Request[]): void {
    for (const r of requests) void this.run(r);
  }
  async run(r: Request): Promise<void> {
    const sender = r.responseSender();
    const prompt = r.input('text_input').strings()[0] ?? '';
    if (prompt.includes('__stats__')) {
      await sender.send(new InferenceResponse({ outputs: [text(JSON.stringify({ cancelled, completed, sent }))] }), { final: true });
      return;
    }
    const n = r.hasInput('max_tokens') ? Number((r.input('max_tokens').data as Int32Array)[0]) : 5;
    const slow = prompt.includes('__slow__');
    try {
      for (let i = 0; i < n; i++) {
        if (r.isCancelled()) { cancelled++; return; }
        if (slow) spin(10);
        const parameters = i === 0 ? { prompt_tokens: 3, completion_tokens: 1 } : { completion_tokens: 1 };
        await sender.send(new InferenceResponse({ outputs: [text(i === 0 ? 'w0' : ' w' + i)], parameters }));
        sent++;
      }
      completed++;
      await sender.send(new InferenceResponse({ parameters: { finish_reason: 'length' } }), { final: true });
    } catch {
      cancelled++;
    }
  }
}
`;

const PLAIN = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const seen = {
        prompt: r.input('text_input').strings()[0],
        parameters: r.parameters,
        max_tokens: r.hasInput('max_tokens') ? Array.from(r.input('max_tokens').data as Int32Array) : null,
        // reversed, so that the stop strings echoed do not end the answer
        stop: r.hasInput('stop') ? r.input('stop').strings().map((x) => [...x].reverse().join('')) : null,
      };
      return new InferenceResponse({ outputs: [new Tensor('text_output', 'BYTES', [1], [JSON.stringify(seen)])] });
    });
  }
}
`;

const EMB = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const texts = r.input('INPUT_TEXT').strings();
      const out = new Float32Array(texts.length * 3);
      texts.forEach((t, i) => out.set([t.length, t.split('a').length - 1, 1.5], i * 3));
      return new InferenceResponse({ outputs: [new Tensor('VEC', 'FP32', [texts.length, 3], out)], parameters: { prompt_tokens: 2 } });
    });
  }
}
`;

const HIDDEN = PLAIN;

const PLAIN_TEMPLATE = '{% for message in messages %}<{{ message.role }}>{{ message.content }}{% endfor %}<assistant>';

export function openAiRepo(): TempRepo {
  const repo = scriptRepo({
    gen: {
      config: [
        'max_batch_size: 0', 'model_transaction_policy { decoupled: true }', 'instance_group [ { count: 1 kind: KIND_CPU } ]',
        'input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] }, { name: "max_tokens" data_type: TYPE_INT32 dims: [ 1 ] optional: true } ]',
        'output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ]',
      ],
      code: GEN,
      params: { openai: 'chat,completions' },
    },
    plain: {
      config: [
        'max_batch_size: 0', 'instance_group [ { count: 1 kind: KIND_CPU } ]',
        'input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] }, { name: "max_tokens" data_type: TYPE_INT32 dims: [ 1 ] optional: true },',
        '  { name: "stop" data_type: TYPE_STRING dims: [ -1 ] optional: true } ]',
        'output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ]',
      ],
      code: PLAIN,
      params: { openai: 'chat, completions', openai_chat_template: PLAIN_TEMPLATE },
    },
    emb: {
      config: [
        'max_batch_size: 8', 'dynamic_batching { max_queue_delay_microseconds: 0 }', 'instance_group [ { count: 1 kind: KIND_CPU } ]',
        'input [ { name: "INPUT_TEXT" data_type: TYPE_STRING dims: [ 1 ] } ]',
        'output [ { name: "VEC" data_type: TYPE_FP32 dims: [ 3 ] } ]',
      ],
      code: EMB,
      params: { openai: 'embeddings', openai_text_input: 'INPUT_TEXT', openai_embedding_output: 'VEC' },
    },
    hidden: {
      config: [
        'max_batch_size: 0',
        'input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] }, { name: "max_tokens" data_type: TYPE_INT32 dims: [ 1 ] optional: true },',
        '  { name: "stop" data_type: TYPE_STRING dims: [ -1 ] optional: true } ]',
        'output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ]',
      ],
      code: HIDDEN,
    },
  });
  repo.file('relay/config.pbtxt', `name: "relay"
platform: "ensemble"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] } ]
output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ]
ensemble_scheduling { step [ { model_name: "gen" model_version: -1
  input_map { key: "text_input" value: "text_input" } output_map { key: "text_output" value: "text_output" } } ] }
parameters { key: "openai" value { string_value: "chat" } }
`);
  return repo;
}
