/**
 * GET /v1/models and /v1/models/{model}: the ready models that declare the OpenAI API (config
 * parameter `openai`), as OpenAI's model objects. `created` is when this front end started: a
 * model's load time is not a creation date, and clients only show it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../errors.js';
import type { OpenAiContext } from './openai-context.js';
import { withParam } from './openai-error.js';
import { servedDeclaration } from './openai-target.js';

export function modelListHandlers(ctx: OpenAiContext) {
  const created = Math.floor(Date.now() / 1000);
  const entry = (id: string) => ({ id, object: 'model', created, owned_by: 'tributary' });
  return {
    async list(_req: FastifyRequest, reply: FastifyReply) {
      const names = [...new Set((await ctx.plane.repositoryIndex({ ready: true })).map((m) => m.name))];
      const data = names.filter((n) => servedDeclaration(ctx.plane, n)).sort().map(entry);
      return reply.type('application/json').send(JSON.stringify({ object: 'list', data }));
    },
    one(req: FastifyRequest<{ Params: { model: string } }>, reply: FastifyReply) {
      const { model } = req.params;
      if (!servedDeclaration(ctx.plane, model)) {
        throw withParam(Errors.openaiModelNotFound(model, 'no ready model of that name declares the OpenAI API (GET /v1/models lists those that do)'), 'model');
      }
      return reply.type('application/json').send(JSON.stringify(entry(model)));
    },
  };
}
