/**
 * The shared-memory extension's registry routes (system and CUDA), through the data plane, which
 * decides what is refused when client shared memory is off and that a CUDA region can never be
 * registered (this server has no GPU; CUDA status lists nothing).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DataPlane } from '../../dataplane/index.js';
import { routeExtras } from './model-route.js';
import { regionParams, regionStatusResponse, registerBody } from './route-schemas.js';

interface RegionRoute { Params: { region?: string }; Body: { key?: string; offset?: number; byte_size?: number } }
type Req = FastifyRequest<RegionRoute>;

export function registerSharedMemoryRoutes(app: FastifyInstance, plane: DataPlane): void {
  const base = '/v2/systemsharedmemory';
  const status = routeExtras({ schema: { response: regionStatusResponse } }, regionParams);
  const plain = routeExtras({}, regionParams);
  const registration = routeExtras({ jsonBody: 'shared memory register request', schema: { body: registerBody } }, regionParams);
  app.get<RegionRoute>(`${base}/status`, status, () => plane.systemStatus());
  app.get<RegionRoute>(`${base}/region/:region/status`, status, (req: Req) => plane.systemStatus(req.params.region));
  app.post<RegionRoute>(`${base}/region/:region/register`, registration, (req: Req, reply: FastifyReply) => {
    plane.systemRegister(req.params.region!, req.body.key, req.body.offset, req.body.byte_size);
    reply.send();
  });
  app.post<RegionRoute>(`${base}/unregister`, plain, (_req, reply) => { plane.systemUnregister(); reply.send(); });
  app.post<RegionRoute>(`${base}/region/:region/unregister`, plain, (req: Req, reply: FastifyReply) => { plane.systemUnregister(req.params.region); reply.send(); });

  const cuda = '/v2/cudasharedmemory';
  app.get<RegionRoute>(`${cuda}/status`, plain, () => plane.cudaStatus());
  app.get<RegionRoute>(`${cuda}/region/:region/status`, plain, (req: Req) => plane.cudaStatus(req.params.region));
  app.post<RegionRoute>(`${cuda}/region/:region/register`, plain, (req: Req) => plane.cudaRegister(req.params.region!));
  app.post<RegionRoute>(`${cuda}/unregister`, plain, (_req, reply) => { plane.cudaUnregister(); reply.send(); });
  app.post<RegionRoute>(`${cuda}/region/:region/unregister`, plain, (req: Req, reply: FastifyReply) => { plane.cudaUnregister(req.params.region); reply.send(); });
}
