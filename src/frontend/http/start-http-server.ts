/**
 * The HTTP/REST front end: KServe v2 with Triton's extensions, on fastify. Routes are thin: they
 * translate to and from the in-process `Server` API. Every body is read as one Buffer (no JSON
 * parser of fastify's: /infer parses its JSON header itself and views binary tensors in place),
 * straight into an aligned buffer of Content-Length bytes (read-body.ts).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Server } from '../../server/types.js';
import type { SharedMemoryRegistry } from '../shm/shared-memory-registry.js';
import { compressResponse, inflateRequest } from './compression.js';
import { registerGenerateRoutes } from './generate-routes.js';
import { registerInferRoutes } from './infer-routes.js';
import { readBody } from './read-body.js';
import { registerModelRoutes } from './model-routes.js';
import { registerRepositoryRoutes } from './repository-routes.js';
import { fromFastifyError, sendError } from './send-error.js';
import { registerSettingsRoutes } from './settings-routes.js';
import { registerSharedMemoryRoutes } from './shared-memory-routes.js';
import { Errors } from '../../errors.js';

export interface HttpServerOptions {
  port: number;
  host?: string;
  /** Largest request body after decompression; 413 past it. Default 256 MiB. */
  bodyLimit?: number;
  sharedMemory?: SharedMemoryRegistry;
  logger?: boolean;
  /** Compress responses of at least this many bytes when the client accepts it. Default 1024. */
  compressThreshold?: number;
}

export interface HttpServerHandle {
  port: number;
  close(): Promise<void>;
  /** The fastify instance (for tests and for adding routes before listen). */
  app: FastifyInstance;
}

export const DEFAULT_BODY_LIMIT = 256 * 1024 * 1024;

export function buildHttpApp(server: Server, options: Omit<HttpServerOptions, 'port' | 'host'> = {}): FastifyInstance {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit,
    forceCloseConnections: true,
    keepAliveTimeout: 65_000,
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', readBody(bodyLimit));
  app.addHook('preParsing', (request, _reply, payload, done) => {
    try {
      done(null, inflateRequest(request, payload));
    } catch (e) {
      done(e as Error);
    }
  });
  const compressThreshold = options.compressThreshold ?? 1024;
  app.addHook('onSend', compressResponse(compressThreshold));
  app.setErrorHandler((error, _request, reply) => {
    sendError(reply, fromFastifyError(error, bodyLimit));
  });
  app.setNotFoundHandler((request, reply) => {
    sendError(reply, Errors.notFound(`no route for ${request.method} ${request.url.split('?')[0]}`));
  });
  const shm = options.sharedMemory;
  registerModelRoutes(app, server, shm !== undefined);
  registerInferRoutes(app, server, shm, compressThreshold);
  registerGenerateRoutes(app, server);
  registerRepositoryRoutes(app, server);
  registerSettingsRoutes(app, server);
  registerSharedMemoryRoutes(app, shm);
  return app;
}

export async function startHttpServer(server: Server, options: HttpServerOptions): Promise<HttpServerHandle> {
  const app = buildHttpApp(server, options);
  await app.listen({ port: options.port, host: options.host ?? '0.0.0.0' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { port, app, close: () => app.close() };
}
