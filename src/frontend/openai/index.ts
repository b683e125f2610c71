/**
 * The OpenAI-compatible front end (/v1/models, /v1/chat/completions, /v1/completions,
 * /v1/embeddings) over any model or pipeline that declares it (docs/openai.md), served by the
 * HTTP front end on its port and, with --openai-port, on a port of its own.
 */
export { registerOpenAiRoutes } from './register-openai-routes.js';
export { sendOpenAiError } from './openai-error.js';
export { OPENAI_DEFAULTS, type OpenAiLimits } from './openai-limits.js';
