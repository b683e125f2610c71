/** Server and model metadata, health, readiness, config and statistics. */
import type { FastifyInstance } from 'fastify';
import type { DataPlane } from '../../dataplane/index.js';
import { modelConfigToJson } from '../../protocol/index.js';
import { modelRoute } from './model-route.js';
import { objectResponse, serverMetadataResponse } from './route-schemas.js';

export function registerModelRoutes(app: FastifyInstance, plane: DataPlane): void {
  app.get('/v2', { schema: { response: serverMetadataResponse } }, () => plane.serverMetadata());
  app.get('/v2/health/live', (_req, reply) => { reply.code(plane.live() ? 200 : 400).send(); });
  app.get('/v2/health/ready', (_req, reply) => { reply.code(plane.ready() ? 200 : 400).send(); });

  modelRoute(app, 'GET', '/ready', (req, reply) => {
    const ready = plane.modelReadyCheck(req.params.model, req.params.version);
    if (typeof ready === 'boolean') return reply.code(ready ? 200 : 400).send();
    return ready.then((r) => reply.code(r ? 200 : 400).send());
  });
  const response = { response: objectResponse };
  modelRoute(app, 'GET', '', (req) => plane.modelMetadata(req.params.model, req.params.version), { schema: response });
  modelRoute(app, 'GET', '/config', (req) => modelConfigToJson(plane.modelConfig(req.params.model, req.params.version)), { schema: response });
  app.get('/v2/models/stats', { schema: response }, () => plane.modelStatistics());
  modelRoute(app, 'GET', '/stats', (req) => plane.modelStatistics(req.params.model, req.params.version), { schema: response });
}
