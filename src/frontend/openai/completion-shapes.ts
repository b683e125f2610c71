/**
 * The answer objects of chat and completions, plain and streamed, as OpenAI's API spells them
 * (https://platform.openai.com/docs/api-reference/chat/object and .../completions/object).
 */
import type { TokenCounts } from './run-choice.js';

export type CompletionKind = 'chat' | 'completions';

export interface Usage { prompt_tokens: number; completion_tokens: number; total_tokens: number }

export interface Header { id: string; created: number; model: string }

export interface ChoiceResult { index: number; prompt: number; text: string; finish: string; counts: TokenCounts }

/** Usage when every choice reported its counts; a prompt counts once, however many choices it has. */
export function usageOf(results: readonly { prompt: number; counts: TokenCounts }[]): Usage | undefined {
  if (results.some((r) => r.counts.prompt === undefined || r.counts.completion === undefined)) return undefined;
  const prompts = new Map<number, number>();
  let completion = 0;
  for (const r of results) {
    if (!prompts.has(r.prompt)) prompts.set(r.prompt, r.counts.prompt!);
    completion += r.counts.completion!;
  }
  const prompt = [...prompts.values()].reduce((a, b) => a + b, 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export function completionObject(kind: CompletionKind, h: Header, results: readonly ChoiceResult[], usage: Usage | undefined): object {
  const choices = [...results].sort((a, b) => a.index - b.index).map((r) => (kind === 'chat'
    ? { index: r.index, message: { role: 'assistant', content: r.text, refusal: null }, logprobs: null, finish_reason: r.finish }
    : { index: r.index, text: r.text, logprobs: null, finish_reason: r.finish }));
  return { id: h.id, object: kind === 'chat' ? 'chat.completion' : 'text_completion', created: h.created, model: h.model, choices, ...(usage ? { usage } : {}) };
}

/**
 * A streamed chunk for one choice: a piece of text (`first`: the choice's first chunk, which in a
 * chat names the role), or its end (`finish`).
 */
export function chunkObject(kind: CompletionKind, h: Header, index: number, part: { text: string; first: boolean } | { finish: string }): object {
  let choice: object;
  if (kind === 'chat') {
    const delta = 'text' in part ? (part.first ? { role: 'assistant', content: part.text } : { content: part.text }) : {};
    choice = { index, delta, logprobs: null, finish_reason: 'finish' in part ? part.finish : null };
  } else {
    choice = { index, text: 'text' in part ? part.text : '', logprobs: null, finish_reason: 'finish' in part ? part.finish : null };
  }
  return { id: h.id, object: kind === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: h.created, model: h.model, choices: [choice] };
}

/** The last chunk of a stream that asked for usage (`stream_options.include_usage`). */
export function usageChunk(kind: CompletionKind, h: Header, usage: Usage): object {
  return { id: h.id, object: kind === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: h.created, model: h.model, choices: [], usage };
}
