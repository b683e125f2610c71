/**
 * System shared memory through `options.sharedMemory` (src/frontend/shm). Without it (client
 * shared memory is off unless the server runs with --allow-client-shm=true) every route answers
 * UNSUPPORTED with how to enable it. CUDA shared memory needs a GPU build: always 501.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../errors.js';
import type { SharedMemoryRegistry } from '../shm/shared-memory-registry.js';
import { jsonBody } from './decode-http-infer.js';
import { sendError } from './send-error.js';

type Req = FastifyRequest<{ Params: { region?: string } }>;

function uint(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw Errors.badRequest(`${what} must be a non-negative integer`);
  return v;
}

export function registerSharedMemoryRoutes(app: FastifyInstance, registry: SharedMemoryRegistry | undefined): void {
  const guard = (fn: (req: Req) => unknown) => (req: Req, reply: FastifyReply) => {
    try {
      if (!registry) throw Errors.clientShmDisabled('system shared memory');
      const out = fn(req);
      if (out === undefined) reply.code(200).send();
      else reply.type('application/json').send(JSON.stringify(out));
    } catch (e) {
      sendError(reply, e);
    }
  };
  const base = '/v2/systemsharedmemory';
  const status = guard((req) => registry!.status(req.params.region));
  app.get(`${base}/status`, status);
  app.get(`${base}/region/:region/status`, status);
  app.post(`${base}/region/:region/register`, guard((req) => {
    const body = jsonBody(req, 'shared memory register request') as Record<string, unknown>;
    if (typeof body !== 'object' || body === null || typeof body.key !== 'string' || body.key === '') {
      throw Errors.badRequest(`register region '${req.params.region}': body must be {"key": string, "offset": int, "byte_size": int}`);
    }
    registry!.register(req.params.region!, body.key, uint(body.offset ?? 0, `register region '${req.params.region}': offset`),
      uint(body.byte_size, `register region '${req.params.region}': byte_size`));
    return undefined;
  }));
  const unregister = guard((req) => { registry!.unregister(req.params.region); return undefined; });
  app.post(`${base}/unregister`, unregister);
  app.post(`${base}/region/:region/unregister`, unregister);

  const cuda = (_req: FastifyRequest, reply: FastifyReply) =>
    sendError(reply, Errors.unsupported('CUDA shared memory is not supported: this server runs on CPU (use system shared memory)'));
  for (const p of ['/status', '/region/:region/status']) app.get(`/v2/cudasharedmemory${p}`, cuda);
  for (const p of ['/region/:region/register', '/unregister', '/region/:region/unregister']) app.post(`/v2/cudasharedmemory${p}`, cuda);
}
