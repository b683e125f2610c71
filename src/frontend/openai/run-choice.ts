/**
 * One choice of a chat or completions request: the responses of one model run read as text. Each
 * response's text output is the next piece (a decoupled model sends one per token or word; any
 * other model one piece, the whole text); stop strings end the text and cancel the run. A response
 * may carry parameters the front end reads: `finish_reason` (a string, e.g. "length"), and
 * `prompt_tokens` and `completion_tokens` (integers: the prompt's count, and the tokens this
 * response adds) for `usage`.
 */
import type { Observable, Subscription } from 'rxjs';
import { Errors } from '../../errors.js';
import type { InferenceResponse, ParamValue } from '../../inference/index.js';
import { tensorStrings } from '../../tensor/index.js';
import { StopScanner } from './stop-scanner.js';

export interface TokenCounts { prompt: number | undefined; completion: number | undefined }

export interface ChoiceEvents {
  /** The next piece of text (never empty). */
  text(piece: string): void;
  end(finishReason: string, counts: TokenCounts): void;
  error(e: unknown): void;
}

export interface Choice {
  /** Stop the run (the model's request is cancelled); no event follows. */
  cancel(): void;
}

const count = (v: ParamValue | undefined): number | undefined =>
  (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) || typeof v === 'bigint' ? Number(v) : undefined;

export function runChoice(responses: Observable<InferenceResponse>, model: string, output: string, stop: readonly string[], events: ChoiceEvents): Choice {
  const scanner = new StopScanner(stop);
  const counts: TokenCounts = { prompt: undefined, completion: undefined };
  let finish: string | undefined;
  let done = false;
  // Assigned when subscribe() returns: a run that ends inside it finds it undefined.
  let sub: Subscription | undefined;
  const end = (reason: string) => {
    done = true;
    sub?.unsubscribe();
    events.end(reason, counts);
  };
  const fail = (e: unknown) => {
    done = true;
    sub?.unsubscribe();
    events.error(e);
  };
  const read = (r: InferenceResponse) => {
    const p = r.parameters;
    if (p) {
      if (typeof p.finish_reason === 'string') finish = p.finish_reason;
      const prompt = count(p.prompt_tokens);
      if (prompt !== undefined) counts.prompt = prompt;
      const completion = count(p.completion_tokens);
      if (completion !== undefined) counts.completion = (counts.completion ?? 0) + completion;
    }
    if (r.outputs.length === 0) return;
    const t = r.outputs.find((o) => o.name === output);
    if (!t) {
      fail(Errors.openaiOutputMissing(model, output, r.outputs.map((o) => `'${o.name}'`).join(', ')));
      return;
    }
    const { text, stopped } = scanner.push(tensorStrings(t).join(''));
    if (text) events.text(text);
    if (stopped) end('stop');
  };
  sub = responses.subscribe({
    next(r) {
      if (done) return;
      try {
        read(r);
      } catch (e) {
        fail(e);
      }
    },
    error(e) {
      if (!done) fail(e);
    },
    complete() {
      if (done) return;
      const rest = scanner.flush();
      if (rest) events.text(rest);
      end(finish ?? 'stop');
    },
  });
  if (done) sub.unsubscribe();
  return {
    cancel() {
      done = true;
      sub?.unsubscribe();
    },
  };
}
