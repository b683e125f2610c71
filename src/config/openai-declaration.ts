/**
 * A model's opt-in to the OpenAI-compatible front end, read from its `parameters` (docs/openai.md):
 * `openai` lists what it serves (chat, completions, embeddings), and optional parameters name its
 * text input, its text and embedding outputs, and its chat template. validate-openai.ts checks
 * them when the model loads; this reads a checked config, with the defaults filled in.
 */
import { configParam } from './config-param.js';
import { DEFAULT_CHAT_TEMPLATE, isChatTemplateProblem, parseChatTemplate, type ChatTemplate } from './chat-template.js';
import type { ModelConfig } from './model-config.js';

export const OPENAI_ENDPOINTS = ['chat', 'completions', 'embeddings'] as const;
export type OpenAiEndpoint = (typeof OPENAI_ENDPOINTS)[number];

/** The `parameters` keys, and the tensor names the front end uses when a key is absent (Triton's generate names). */
export const OPENAI_KEYS = {
  endpoints: 'openai',
  textInput: 'openai_text_input',
  textOutput: 'openai_text_output',
  embeddingOutput: 'openai_embedding_output',
  chatTemplate: 'openai_chat_template',
} as const;

export const OPENAI_TENSOR_DEFAULTS = { textInput: 'text_input', textOutput: 'text_output', embeddingOutput: 'embedding' } as const;

export interface OpenAiDeclaration {
  endpoints: ReadonlySet<OpenAiEndpoint>;
  textInput: string;
  textOutput: string;
  embeddingOutput: string;
  chatTemplate: ChatTemplate;
}

/** The words of an `openai` value, trimmed; empty ones kept, for the validator to name. */
export function openAiWords(value: string): string[] {
  return value.split(',').map((w) => w.trim());
}

const DEFAULT_TEMPLATE = parseChatTemplate(DEFAULT_CHAT_TEMPLATE) as ChatTemplate;
const cache = new WeakMap<object, OpenAiDeclaration | null>();

/** The model's declaration, or undefined when it does not serve the OpenAI API. Cached per (frozen) config. */
export function openAiDeclaration(config: Pick<ModelConfig, 'parameters'>): OpenAiDeclaration | undefined {
  const cached = cache.get(config);
  if (cached !== undefined) return cached ?? undefined;
  const value = configParam(config, OPENAI_KEYS.endpoints);
  let decl: OpenAiDeclaration | null = null;
  if (value !== undefined) {
    const endpoints = new Set(openAiWords(value).filter((w): w is OpenAiEndpoint => (OPENAI_ENDPOINTS as readonly string[]).includes(w)));
    const text = configParam(config, OPENAI_KEYS.chatTemplate);
    const parsed = text === undefined ? DEFAULT_TEMPLATE : parseChatTemplate(text);
    decl = {
      endpoints,
      textInput: configParam(config, OPENAI_KEYS.textInput) || OPENAI_TENSOR_DEFAULTS.textInput,
      textOutput: configParam(config, OPENAI_KEYS.textOutput) || OPENAI_TENSOR_DEFAULTS.textOutput,
      embeddingOutput: configParam(config, OPENAI_KEYS.embeddingOutput) || OPENAI_TENSOR_DEFAULTS.embeddingOutput,
      // A config that loaded has a template that parses; an unchecked one falls back to the default.
      chatTemplate: isChatTemplateProblem(parsed) ? DEFAULT_TEMPLATE : parsed,
    };
  }
  cache.set(config, decl);
  return decl ?? undefined;
}
