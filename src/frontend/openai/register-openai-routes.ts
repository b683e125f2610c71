/**
 * The OpenAI-compatible API under /v1, in its own fastify scope: its errors, thrown or refused
 * (a schema, a body past the size bound, malformed JSON, an unknown /v1 path), are answered in
 * OpenAI's shape. JSON bodies are read by the HTTP front end's one parser (size bound,
 * decompression, depth bound) before a handler sees them.
 */
import type { FastifyInstance } from 'fastify';
import { Errors } from '../../errors.js';
import { completionHandler } from './completion-routes.js';
import { embeddingHandler } from './embedding-route.js';
import type { OpenAiContext } from './openai-context.js';
import { sendOpenAiError } from './openai-error.js';
import { modelListHandlers } from './model-list-routes.js';

const JSON_BODY = 'the OpenAI request';

export function registerOpenAiRoutes(app: FastifyInstance, ctx: OpenAiContext): void {
  void app.register(async (scope) => {
    scope.setErrorHandler((error, request, reply) => {
      const json = (request.routeOptions.config as { jsonBody?: string } | undefined)?.jsonBody;
      sendOpenAiError(reply, ctx.fromFastifyError(error, json));
    });
    scope.setNotFoundHandler((request, reply) => {
      sendOpenAiError(reply, Errors.httpNoRoute(request.method, request.url.split('?')[0] ?? ''));
    });
    const models = modelListHandlers(ctx);
    scope.get('/models', models.list);
    scope.get('/models/:model', models.one);
    const post = { config: { jsonBody: JSON_BODY } };
    scope.post('/chat/completions', post, completionHandler('chat', ctx));
    scope.post('/completions', post, completionHandler('completions', ctx));
    scope.post('/embeddings', post, embeddingHandler(ctx));
  }, { prefix: '/v1' });
}
