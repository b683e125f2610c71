/**
 * The generation fields chat and completions requests share: what the model is given (by the
 * field's OpenAI name: an input of that name when the model has one, else a request parameter),
 * and what the front end does itself (stop strings, choices, streaming, usage in the stream).
 */
import type { OpenAiLimits } from './openai-limits.js';
import { fieldError, limitError } from './openai-error.js';
import { optionalBool, optionalInt, optionalNumber, optionalString, stringList, type Body } from './read-fields.js';

export type FieldValue = number | boolean | readonly string[];

export interface Sampling {
  /** Fields for the model by OpenAI name (`max_completion_tokens` is given as `max_tokens`). */
  fields: Map<string, FieldValue>;
  /** Fields the model gets only as an input of that name, never as a parameter (the front end acts on them itself). */
  inputOnly: ReadonlySet<string>;
  stop: readonly string[];
  n: number;
  stream: boolean;
  includeUsage: boolean;
}

const RANGES: readonly [string, number, number][] = [
  ['temperature', 0, 2], ['top_p', 0, 1], ['presence_penalty', -2, 2], ['frequency_penalty', -2, 2],
];
const INPUT_ONLY: ReadonlySet<string> = new Set(['stop', 'stream']);

export function readSampling(body: Body, limits: OpenAiLimits): Sampling {
  const fields = new Map<string, FieldValue>();
  for (const [name, min, max] of RANGES) {
    const v = optionalNumber(body, name, min, max);
    if (v !== undefined) fields.set(name, v);
  }
  const seed = optionalInt(body, 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  if (seed !== undefined) fields.set('seed', seed);
  const flag = '--openai-max-tokens';
  const maxTokens = optionalInt(body, 'max_completion_tokens', 1, limits.maxTokens, flag) ?? optionalInt(body, 'max_tokens', 1, limits.maxTokens, flag);
  if (maxTokens !== undefined) fields.set('max_tokens', maxTokens);
  const n = optionalInt(body, 'n', 1, limits.maxN) ?? 1;
  const stream = optionalBool(body, 'stream') ?? false;
  if (stream) fields.set('stream', true);
  const stop = stringList(body, 'stop', 'a string or a list of strings') ?? [];
  if (stop.length > limits.maxStop) throw limitError('stop', 'has', stop.length, limits.maxStop);
  stop.forEach((s, i) => {
    if (s.length === 0) throw fieldError(`stop[${i}]`, 'must not be empty');
    if (s.length > limits.maxStopLength) throw limitError(`stop[${i}]`, 'has length', s.length, limits.maxStopLength);
  });
  if (stop.length) fields.set('stop', stop);
  // Chat's logprobs is a boolean, completions' a count; either asks for what no model here gives.
  const lp = body.logprobs;
  const top = body.top_logprobs;
  if (lp === true || (typeof lp === 'number' && lp > 0) || (top != null && top !== 0)) {
    throw fieldError(lp === true || typeof lp === 'number' ? 'logprobs' : 'top_logprobs', 'is not supported: this server returns no log probabilities');
  }
  optionalString(body, 'user');
  let includeUsage = false;
  const options = body.stream_options;
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object' || Array.isArray(options)) throw fieldError('stream_options', 'must be an object');
    includeUsage = optionalBool(options as Body, 'include_usage') ?? false;
  }
  return { fields, inputOnly: INPUT_ONLY, stop, n, stream, includeUsage };
}
