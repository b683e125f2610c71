/**
 * The bounds of one OpenAI request, past which it is refused with TRB_OPENAI_LIMIT (the body as a
 * whole is already bounded by --http-max-input-size). Each model run a request starts holds a
 * slot of its model's queue and a stream account, so `n` and the prompt and input counts bound
 * the work one request can start.
 */
export interface OpenAiLimits {
  /** Largest `max_tokens` (`max_completion_tokens`) a request may ask for (--openai-max-tokens). */
  maxTokens: number;
  /** Choices per prompt (`n`). */
  maxN: number;
  /** Model runs one completions request starts: prompts × n. */
  maxChoices: number;
  /** Stop strings (`stop`): OpenAI's own limit is 4. */
  maxStop: number;
  /** Characters in one stop string: the text held back from a stream while it might start one. */
  maxStopLength: number;
  /** Chat messages in one request. */
  maxMessages: number;
  /** Characters of one prompt: a rendered chat, a completions prompt, an embeddings input. */
  maxPromptChars: number;
  /** Texts in one embeddings request (OpenAI's own limit is 2048). */
  maxEmbeddingInputs: number;
}

export const OPENAI_DEFAULTS: Readonly<OpenAiLimits> = Object.freeze({
  maxTokens: 4096,
  maxN: 16,
  maxChoices: 64,
  maxStop: 4,
  maxStopLength: 256,
  maxMessages: 1024,
  maxPromptChars: 1024 * 1024,
  maxEmbeddingInputs: 2048,
});
