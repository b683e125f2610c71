/** The model repository extension: index, load (config override, `file:` contents), unload. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DataPlane, LoadParameters } from '../../dataplane/index.js';
import { routeExtras } from './model-route.js';
import { indexBody, repositoryBody, repositoryIndexResponse } from './route-schemas.js';

interface ModelRoute { Params: { model: string; repo?: string }; Body: { parameters?: LoadParameters } }
interface IndexRoute { Body: { ready?: boolean } }
type Req = FastifyRequest<ModelRoute>;

export function registerRepositoryRoutes(app: FastifyInstance, plane: DataPlane): void {
  const index = routeExtras({ jsonBody: 'repository index', schema: { body: indexBody, response: repositoryIndexResponse } });
  const handleIndex = (req: FastifyRequest<IndexRoute>) => plane.repositoryIndex(req.body);
  app.post<IndexRoute>('/v2/repository/index', index, handleIndex);
  app.post<IndexRoute>('/v2/repository/:repo/index', index, handleIndex);

  const load = routeExtras({ jsonBody: 'load request', schema: { body: repositoryBody } });
  const handleLoad = async (req: Req, reply: FastifyReply) => { await plane.load(req.params.model, req.body.parameters); return reply.send(); };
  app.post<ModelRoute>('/v2/repository/models/:model/load', load, handleLoad);
  app.post<ModelRoute>('/v2/repository/:repo/models/:model/load', load, handleLoad);

  const unload = routeExtras({ jsonBody: 'unload request', schema: { body: repositoryBody } });
  const handleUnload = async (req: Req, reply: FastifyReply) => { await plane.unload(req.params.model, req.body.parameters); return reply.send(); };
  app.post<ModelRoute>('/v2/repository/models/:model/unload', unload, handleUnload);
  app.post<ModelRoute>('/v2/repository/:repo/models/:model/unload', unload, handleUnload);
}
