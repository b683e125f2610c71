/**
 * The prompts of a chat or completions request: a chat's messages rendered by the model's chat
 * template, or a completions request's `prompt` (one text or a list; token arrays are refused,
 * since no model here shares a tokenizer with the client). Each is bounded in length, and the
 * model runs a request starts (prompts × n) in number.
 */
import { renderChatTemplate } from '../../config/index.js';
import { fieldError, limitError } from './openai-error.js';
import type { OpenAiLimits } from './openai-limits.js';
import type { OpenAiTarget } from './openai-target.js';
import { readMessages } from './read-messages.js';
import { shown, type Body } from './read-fields.js';

export function readPrompts(kind: 'chat' | 'completions', body: Body, target: OpenAiTarget, n: number, limits: OpenAiLimits): string[] {
  const prompts = kind === 'chat' ? [renderChatTemplate(target.decl.chatTemplate, readMessages(body, limits))] : completionPrompts(body);
  prompts.forEach((p, i) => {
    const field = kind === 'chat' ? 'messages' : Array.isArray(body.prompt) ? `prompt[${i}]` : 'prompt';
    if (p.length > limits.maxPromptChars) {
      throw limitError(field, kind === 'chat' ? 'rendered by the chat template has length' : 'has length', p.length, limits.maxPromptChars);
    }
  });
  if (prompts.length * n > limits.maxChoices) {
    throw limitError(prompts.length > 1 ? 'prompt' : 'n', 'asks for prompts × n =', prompts.length * n, limits.maxChoices);
  }
  return prompts;
}

function completionPrompts(body: Body): string[] {
  const p = body.prompt;
  if (p === undefined || p === null) throw fieldError('prompt', 'is required');
  if (typeof p === 'string') return [p];
  if (!Array.isArray(p)) throw fieldError('prompt', `must be a string or a list of strings, got ${shown(p)}`);
  if (p.length === 0) throw fieldError('prompt', 'must hold at least one prompt');
  return p.map((s: unknown, i) => {
    if (typeof s === 'number' || Array.isArray(s)) throw fieldError('prompt', 'token arrays are not supported: send the prompt as text');
    if (typeof s !== 'string') throw fieldError(`prompt[${i}]`, `must be a string, got ${shown(s)}`);
    return s;
  });
}
