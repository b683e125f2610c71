/** Server and model metadata, health, readiness, config and statistics. */
import type { FastifyInstance } from 'fastify';
import type { Server } from '../../server/types.js';
import { modelRoute } from './model-route.js';
import { sendError } from './send-error.js';

/** Extensions this HTTP front end decides for itself, whatever the core claims. */
const FRONTEND_OWNED = new Set(['system_shared_memory', 'cuda_shared_memory', 'trace', 'generate']);

export function serverExtensions(server: Server, sharedMemory: boolean): string[] {
  const out = server.metadata().extensions.filter((e) => !FRONTEND_OWNED.has(e));
  if (sharedMemory) out.push('system_shared_memory');
  out.push('generate');
  return [...new Set(out)];
}

export function registerModelRoutes(app: FastifyInstance, server: Server, sharedMemory: boolean): void {
  const json = (v: unknown) => JSON.stringify(v);
  app.get('/v2', (_req, reply) => {
    const m = server.metadata();
    reply.type('application/json').send(json({ name: m.name, version: m.version, extensions: serverExtensions(server, sharedMemory) }));
  });
  app.get('/v2/health/live', (_req, reply) => { reply.code(server.isLive() ? 200 : 400).send(); });
  app.get('/v2/health/ready', (_req, reply) => { reply.code(server.isReady() ? 200 : 400).send(); });

  modelRoute(app, 'GET', '/ready', (req, reply) => {
    reply.code(server.modelReady(req.params.model, req.params.version) ? 200 : 400).send();
  });
  modelRoute(app, 'GET', '', (req, reply) => {
    try {
      reply.type('application/json').send(json(server.modelMetadata(req.params.model, req.params.version)));
    } catch (e) {
      sendError(reply, e);
    }
  });
  modelRoute(app, 'GET', '/config', (req, reply) => {
    try {
      reply.type('application/json').send(json(server.modelConfig(req.params.model, req.params.version)));
    } catch (e) {
      sendError(reply, e);
    }
  });
  app.get('/v2/models/stats', (_req, reply) => {
    try {
      reply.type('application/json').send(json(server.modelStatistics()));
    } catch (e) {
      sendError(reply, e);
    }
  });
  modelRoute(app, 'GET', '/stats', (req, reply) => {
    try {
      reply.type('application/json').send(json(server.modelStatistics(req.params.model, req.params.version)));
    } catch (e) {
      sendError(reply, e);
    }
  });
}
