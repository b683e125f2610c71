/**
 * Chat messages as the chat template renders them: a role and a text. Content may be a string or
 * a list of text parts (joined); parts of other kinds (images, audio) are refused, since the
 * models here take text. An assistant message with tool calls and no content counts as empty.
 */
import type { ChatMessage } from '../../config/index.js';
import type { OpenAiLimits } from './openai-limits.js';
import { fieldError, limitError } from './openai-error.js';
import { shown, type Body } from './read-fields.js';

const ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

export function readMessages(body: Body, limits: OpenAiLimits): ChatMessage[] {
  const list = body.messages;
  if (list === undefined || list === null) throw fieldError('messages', 'is required');
  if (!Array.isArray(list)) throw fieldError('messages', `must be a list of messages, got ${shown(list)}`);
  if (list.length === 0) throw fieldError('messages', 'must hold at least one message');
  if (list.length > limits.maxMessages) throw limitError('messages', 'has', list.length, limits.maxMessages);
  return list.map((m: unknown, i) => {
    const at = `messages[${i}]`;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) throw fieldError(at, `must be an object, got ${shown(m)}`);
    const { role, content } = m as Body;
    if (typeof role !== 'string') throw fieldError(`${at}.role`, `must be a string, got ${shown(role)}`);
    if (!ROLES.has(role)) throw fieldError(`${at}.role`, `must be one of ${[...ROLES].join(', ')}, got ${shown(role)}`);
    return { role, content: contentText(content, `${at}.content`) };
  });
}

function contentText(content: unknown, at: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw fieldError(at, `must be a string or a list of content parts, got ${shown(content)}`);
  let text = '';
  content.forEach((part: unknown, j) => {
    const p = part as Body | null;
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw fieldError(`${at}[${j}]`, `must be an object, got ${shown(part)}`);
    if (p.type !== 'text') throw fieldError(`${at}[${j}].type`, `${shown(p.type)} is not supported: the models of this server take text parts only`);
    if (typeof p.text !== 'string') throw fieldError(`${at}[${j}].text`, `must be a string, got ${shown(p.text)}`);
    text += p.text;
  });
  return text;
}
