/**
 * `markov-chat`: a decoupled script that answers a prompt word by word from a bigram Markov chain
 * over corpus.txt (markov.ts). Not a language model; see ../../README.md for what it is.
 *
 * What the OpenAI front end gives it: the prompt in `text_input` (a chat rendered by the config's
 * chat template), `max_tokens` as an input (the config declares one), `temperature` and `seed`
 * as request parameters. What it gives back: one response per word in `text_output`, each with
 * parameter `completion_tokens` 1 (the first also `prompt_tokens`: the prompt's words), and an
 * empty final response naming `finish_reason` ("stop" at a sentence end, "length" at max_tokens).
 */
import { InferenceResponse, Tensor } from 'tributary/bls';
import type { InitializeArgs, Parameters, Request } from 'tributary/bls';
import { buildChain, firstWord, isSentenceEnd, nextWord, piece, seededRandom, type Chain } from './markov.js';

const DEFAULT_MAX_WORDS = 48;
/** A sentence shorter than this goes on past its full stop. */
const MIN_WORDS = 8;
/** Words of the default chat template, never taken as the subject of an answer. */
const ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

export default class MarkovChat {
  private chain!: Chain;

  initialize(args: InitializeArgs): void {
    this.chain = buildChain(args.readText('corpus.txt'));
  }

  execute(requests: Request[]): void {
    // Each answer runs as its own task: execute() returns at once, and each send is awaited, so a
    // slow client pauses its own answer only, and a cancelled one ends at its next word.
    for (const r of requests) void this.answer(r).catch(() => undefined);
  }

  private async answer(r: Request): Promise<void> {
    const sender = r.responseSender();
    const prompt = r.input('text_input').strings()[0] ?? '';
    const max = r.hasInput('max_tokens') ? Number((r.input('max_tokens').data as Int32Array)[0]) : DEFAULT_MAX_WORDS;
    const temperature = typeof r.parameters.temperature === 'number' ? r.parameters.temperature : 1;
    const seed = r.parameters.seed;
    const random = typeof seed === 'number' ? seededRandom(seed) : Math.random;
    let word: string | undefined = firstWord(this.chain, prompt, random, ROLES);
    let previous: string | undefined;
    let count = 0;
    let finish = 'length';
    while (word !== undefined && count < max) {
      if (r.isCancelled()) return;
      const text = new Tensor('text_output', 'BYTES', [1], [piece(word, previous)]);
      const parameters: Parameters = count === 0 ? { completion_tokens: 1, prompt_tokens: prompt.split(/\s+/).filter(Boolean).length } : { completion_tokens: 1 };
      await sender.send(new InferenceResponse({ outputs: [text], parameters }));
      count++;
      if (isSentenceEnd(word) && count >= MIN_WORDS) {
        finish = 'stop';
        break;
      }
      previous = word;
      word = nextWord(this.chain, word, temperature, random);
    }
    if (word === undefined) finish = 'stop';
    await sender.send(new InferenceResponse({ parameters: { finish_reason: finish } }), { final: true });
  }
}
