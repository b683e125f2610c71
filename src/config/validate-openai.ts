/**
 * Checks of a model's opt-in to the OpenAI-compatible front end (openai-declaration.ts): known
 * endpoint words, no misspelt `openai_*` key, a chat template the front end can render, and, where
 * the config declares its tensors, the text input and the outputs the endpoints need, with the
 * types they need. Each problem at the parameter's value (a template problem at its character).
 */
import { closest } from './closest.js';
import type { ConfigReporter } from './config-reporter.js';
import { isChatTemplateProblem, parseChatTemplate } from './chat-template.js';
import { OPENAI_ENDPOINTS, OPENAI_KEYS, OPENAI_TENSOR_DEFAULTS, openAiWords } from './openai-declaration.js';

const KEYS: readonly string[] = Object.values(OPENAI_KEYS);
const FLOAT_TYPES = new Set(['TYPE_FP32', 'TYPE_FP16', 'TYPE_FP64', 'TYPE_BF16']);
const at = (key: string) => `parameters.${key}.string_value`;

export function validateOpenAi(r: ConfigReporter): void {
  const params = r.config.parameters;
  const own = Object.keys(params).filter((k) => k === OPENAI_KEYS.endpoints || k.startsWith('openai_'));
  for (const k of own) {
    if (KEYS.includes(k)) continue;
    const near = closest(k, KEYS);
    r.error(`parameters.${k}`, `parameters: unknown key '${k}'${near ? `; did you mean '${near}'?` : ''} (the OpenAI keys are ${KEYS.join(', ')})`);
  }
  const value = params[OPENAI_KEYS.endpoints]?.string_value;
  if (value === undefined) {
    const set = own.filter((k) => KEYS.includes(k));
    if (set.length) r.warning(`parameters.${set[0]}`, `parameters: ${set.join(', ')} ha${set.length > 1 ? 've' : 's'} no effect without parameter '${OPENAI_KEYS.endpoints}' (chat, completions, embeddings)`);
    return;
  }
  const words = openAiWords(value);
  const seen = new Set<string>();
  for (const w of words) {
    if (!(OPENAI_ENDPOINTS as readonly string[]).includes(w)) {
      r.error(at(OPENAI_KEYS.endpoints), `parameters.openai: '${w}' is not an OpenAI endpoint; list one or more of ${OPENAI_ENDPOINTS.join(', ')}, separated by commas`);
    } else if (seen.has(w)) {
      r.error(at(OPENAI_KEYS.endpoints), `parameters.openai: '${w}' is listed twice`);
    }
    seen.add(w);
  }
  const text = seen.has('chat') || seen.has('completions');
  const template = params[OPENAI_KEYS.chatTemplate]?.string_value;
  if (template !== undefined) {
    if (!seen.has('chat')) r.warning(at(OPENAI_KEYS.chatTemplate), `parameters.${OPENAI_KEYS.chatTemplate} has no effect: the model does not serve chat`);
    const parsed = parseChatTemplate(template);
    if (isChatTemplateProblem(parsed)) {
      r.error(`${at(OPENAI_KEYS.chatTemplate)}#text`, `parameters.${OPENAI_KEYS.chatTemplate}: at character ${parsed.offset + 1}: ${parsed.message}`, parsed.offset);
    }
  }
  tensor(r, 'input', OPENAI_KEYS.textInput, OPENAI_TENSOR_DEFAULTS.textInput, 'the text input', (t) => t === 'TYPE_STRING');
  if (text) tensor(r, 'output', OPENAI_KEYS.textOutput, OPENAI_TENSOR_DEFAULTS.textOutput, 'the text output', (t) => t === 'TYPE_STRING');
  if (seen.has('embeddings')) {
    tensor(r, 'output', OPENAI_KEYS.embeddingOutput, OPENAI_TENSOR_DEFAULTS.embeddingOutput, 'the embedding output', (t) => FLOAT_TYPES.has(t));
  }
}

/** The tensor a key names (or its default) exists, with a type `ok` accepts; skipped where the config declares none of that kind yet (auto-complete fills them). */
function tensor(r: ConfigReporter, kind: 'input' | 'output', key: string, fallback: string, what: string, ok: (type: string) => boolean): void {
  const list = kind === 'input' ? r.config.input : r.config.output;
  if (list.length === 0) return;
  const name = r.config.parameters[key]?.string_value || fallback;
  const where = r.config.parameters[key] ? at(key) : at(OPENAI_KEYS.endpoints);
  const i = list.findIndex((t) => t.name === name);
  const how = r.config.parameters[key] ? `parameters.${key} names '${name}'` : `${what} is '${name}' unless parameters.${key} names another`;
  if (i < 0) {
    r.error(where, `parameters.openai: ${how}, but the model has no ${kind} '${name}' (its ${kind}s: ${list.map((t) => t.name).join(', ')})`);
    return;
  }
  const t = list[i]!;
  const want = kind === 'input' || key === OPENAI_KEYS.textOutput ? 'TYPE_STRING' : 'a float type (TYPE_FP32, TYPE_FP16, TYPE_FP64, TYPE_BF16)';
  if (!ok(t.data_type)) r.error(where, `parameters.openai: ${what} '${name}' (${kind}[${i}]) is ${t.data_type}; it must be ${want}`);
  if (kind === 'input' && !t.dims.every((d) => d === 1 || d === -1)) {
    r.error(where, `parameters.openai: ${what} '${name}' (input[${i}]) has dims [${t.dims.join(', ')}]; it must hold one text (each dim 1 or -1)`);
  }
}
