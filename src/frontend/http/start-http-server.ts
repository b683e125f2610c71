/**
 * The HTTP/REST front end: KServe v2 with Triton's extensions, on fastify. Routes are thin: they
 * decode the wire, call the data plane (src/dataplane/) and encode its answer; params and JSON
 * bodies are validated by each route's schema, and every error, thrown or refused, is answered by
 * the one error handler. Every body is read as one Buffer, straight into an aligned buffer of
 * Content-Length bytes (read-body.ts); /infer parses its JSON header itself and views binary
 * tensors in place, the other routes' bodies are parsed as JSON after it (json-body.ts).
 *
 * Bounds (http-limits.ts): body size as sent and inflated, time to send the headers and the whole
 * request, open connections. Every client error, fastify's and node's parser's included, is a 4xx
 * with a `{"error": ...}` body (send-error.ts, client-error.ts). HTTPS when `tls` is given.
 * The OpenAI-compatible API (/v1, src/frontend/openai/) is served beside KServe v2, through the
 * same edge, stream account and bounds, or alone (`apis: 'openai'`: --openai-port).
 */
import type { Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Server } from '../../server/index.js';
import { createDataPlane, type DataPlane } from '../../dataplane/index.js';
import type { SharedMemoryRegistry } from '../shm/index.js';
import { clientErrorHandler, refuseConnect } from './client-error.js';
import { closeHttpServer } from './close-http-server.js';
import { compressResponse, inflateRequest } from './compression.js';
import { nodeServerOptions, resolveLimits, type HttpLimits } from './http-limits.js';
import { guardConnections } from '../transport/index.js';
import { answerPlainHttp, httpsServerOptions, type HttpTlsOptions } from './http-tls.js';
import { registerGenerateRoutes } from './generate-routes.js';
import { registerInferRoutes } from './infer-routes.js';
import { serveInferDirectly } from './fast-infer.js';
import { serveInferLane } from './infer-lane.js';
import { routeByHeader, type SequenceRouting } from './sequence-routing.js';
import { createHttpForwarder, type SequenceOwners } from '../forward/index.js';
import { jsonAwareParser, jsonBodyOf } from './json-body.js';
import { readBody } from './read-body.js';
import { registerModelRoutes } from './model-routes.js';
import { registerRepositoryRoutes } from './repository-routes.js';
import { MAX_PARAM_LENGTH, fromFastifyError, sendError } from './send-error.js';
import { registerSettingsRoutes } from './settings-routes.js';
import { registerSharedMemoryRoutes } from './shared-memory-routes.js';
import { restrictHttpRoutes, type RestrictionTable } from '../restrict/index.js';
import { OPENAI_DEFAULTS, registerOpenAiRoutes, sendOpenAiError, type OpenAiLimits } from '../openai/index.js';
import { RequestHeaders } from './request-headers.js';
import { StreamBudget } from '../stream/index.js';
import { Errors } from '../../errors.js';
import { createLogger } from '../../logger.js';

const log = createLogger('http');
const GUARD_NAMES = Object.freeze({
  what: 'HTTP', maxConnections: '--http-max-connections', maxPending: '--http-max-pending-connections', handshakeTimeout: '--http-header-timeout-secs',
});

export interface HttpServerOptions extends Partial<HttpLimits> {
  port: number;
  host?: string;
  /** Serve HTTPS (--http-use-ssl, --http-use-ssl-mutual); plain HTTP without it. */
  tls?: HttpTlsOptions;
  sharedMemory?: SharedMemoryRegistry;
  /**
   * The data plane to serve (shared with the gRPC front end: one trace-settings store); one over
   * `server` and `sharedMemory` is made when absent.
   */
  dataPlane?: DataPlane;
  /**
   * Serve ordinary unary /infer requests on node's HTTP server directly (fast-infer.ts; default
   * true). false sends every request through fastify's route, e.g. to compare the two.
   */
  directInfer?: boolean;
  /**
   * On plain HTTP, read and answer those requests on the socket itself, before node's HTTP server
   * (infer-lane.ts; default true). false leaves them to the lean listener on node's server: needed
   * where a 'request' listener added to the server must see every request (the lane's never reach it).
   */
  inferLane?: boolean;
  /** Categories that demand a header (--http-restricted-api); absent or empty: every route is open. */
  restrictions?: RestrictionTable;
  logger?: boolean;
  /** Compress responses of at least this many bytes when the client accepts it. Default 1024. */
  compressThreshold?: number;
  /** /infer, /generate, /generate_stream and /v1 inference request headers matching this become request parameters (--http-header-forward-pattern). */
  headerForwardPattern?: RegExp;
  /**
   * serve --replicas: relay inference requests of sequences other replicas own to them. Absent
   * (a single server, or a replica's private port) nothing is relayed.
   */
  sequenceOwners?: SequenceOwners;
  /** Bind the port in this process even under node:cluster (a replica's private port). */
  exclusive?: boolean;
  /**
   * The account of streamed responses waiting for clients (--stream-buffer-bytes,
   * --stream-buffer-total-bytes), shared with the gRPC front end; one with the defaults when absent.
   */
  streamBudget?: StreamBudget;
  /** Bounds of the OpenAI-compatible API's requests (/v1/...; --openai-max-tokens); OPENAI_DEFAULTS where absent. */
  openai?: Partial<OpenAiLimits>;
  /**
   * `openai`: serve only the OpenAI-compatible API (--openai-port); every other path is a 404.
   * Default `all`: KServe v2 with Triton's extensions, and the OpenAI-compatible API beside it.
   */
  apis?: 'all' | 'openai';
}

export interface HttpServerHandle {
  port: number;
  /**
   * Stop listening and close the connections: busy ones get `graceMs` (default 0) to finish their
   * response, idle kept-alive ones close at once (close-http-server.ts).
   */
  close(graceMs?: number): Promise<void>;
  /** The fastify instance (for tests and for adding routes before listen). */
  app: FastifyInstance;
}

export function buildHttpApp(server: Server, options: Omit<HttpServerOptions, 'port' | 'host'> = {}): FastifyInstance {
  const limits = resolveLimits(options);
  const nodeOptions = nodeServerOptions(limits);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: limits.maxInputSize,
    // Connections are closed by closeHttpServer, which lets a response in progress finish.
    forceCloseConnections: 'idle',
    keepAliveTimeout: 65_000,
    // fastify applies this one itself after creating the server (its default, 0, is no timeout).
    requestTimeout: limits.requestTimeoutMs,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Bodies are taken as sent: a "true" is not a boolean, nor "16" a byte size (Triton's parser is as strict).
    // Union types (`type: ['string', 'number']`) name a setting's possible JSON values plainly.
    ajv: { customOptions: { coerceTypes: false, allowUnionTypes: true } },
    clientErrorHandler: clientErrorHandler(limits),
    frameworkErrors: (error, _request, reply) => { sendError(reply, fromFastifyError(error, limits.maxInputSize)); },
    ...(options.tls
      ? { https: { ...nodeOptions, ...httpsServerOptions(options.tls, limits.headerTimeoutMs) } }
      : { http: nodeOptions }),
  });
  // node's HTTP parser, taken before the guard's listener is put in front: the socket lane calls it
  // for the connections it hands over (infer-lane.ts).
  const nodeConnectionListeners = app.server.listeners('connection') as ((socket: Socket) => void)[];
  // The time to a first request is node's header timeout (a 408 says why), so the guard sets none.
  const guard = guardConnections(app.server, {
    maxConnections: limits.maxConnections, maxPending: limits.maxPendingConnections, handshakeTimeoutMs: 0, idleTimeoutMs: 0,
  }, log, GUARD_NAMES);
  app.server.on('connect', refuseConnect);
  if (options.tls) answerPlainHttp(app.server as unknown as TlsServer);
  // Before any route exists: every route is classified, restricted ones get their header check.
  // A refusal is answered in the shape of the API its route belongs to.
  const refuse = (reply: FastifyReply, e: unknown) => (isOpenAiRoute(reply.request) ? sendOpenAiError(reply, e) : sendError(reply, e));
  app.addHook('onRoute', restrictHttpRoutes(options.restrictions ?? new Map(), refuse));
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', jsonAwareParser(readBody(limits.maxInputSize)));
  app.addHook('preParsing', (request, reply, payload, done) => {
    try {
      done(null, inflateRequest(request, payload));
    } catch (e) {
      // Triton names the encodings it takes with its refusal.
      reply.header('accept-encoding', 'gzip, deflate');
      done(e as Error);
    }
  });
  const compressThreshold = options.compressThreshold ?? 1024;
  app.addHook('onSend', compressResponse(compressThreshold));
  app.setErrorHandler((error, request, reply) => {
    sendError(reply, fromFastifyError(error, limits.maxInputSize, jsonBodyOf(request)));
  });
  const openaiOnly = options.apis === 'openai';
  app.setNotFoundHandler((request, reply) => {
    const e = Errors.httpNoRoute(request.method, request.url.split('?')[0] ?? '');
    return openaiOnly ? sendOpenAiError(reply, e) : sendError(reply, e);
  });
  const shm = options.sharedMemory;
  const plane = options.dataPlane ?? createDataPlane(server, shm ? { sharedMemory: shm } : {});
  // Checked as each response is sent, so a response to a request that came before the drain closes its connection too.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (plane.draining()) reply.header('connection', 'close');
    done(null, payload);
  });
  const edge = plane.edge({ headerForwardPattern: options.headerForwardPattern });
  const streams = options.streamBudget ?? new StreamBudget();
  registerOpenAiRoutes(app, {
    plane, edge, streams, limits: { ...OPENAI_DEFAULTS, ...options.openai },
    callerHeaders: (headers) => new RequestHeaders(headers),
    fromFastifyError: (e, json) => fromFastifyError(e, limits.maxInputSize, json),
  });
  if (openaiOnly) {
    app.server.prependListener('request', (req) => guard.established(req.socket));
    return app;
  }
  registerModelRoutes(app, plane);
  let routing: SequenceRouting | undefined;
  if (options.sequenceOwners) {
    routing = { owners: options.sequenceOwners, forwarder: createHttpForwarder(options.sequenceOwners) };
    routeByHeader(app.server, routing);
    const { forwarder } = routing;
    app.addHook('onClose', async () => forwarder.close());
  }
  registerInferRoutes(app, plane, edge, shm, compressThreshold, streams, routing);
  registerGenerateRoutes(app, plane, edge, streams);
  registerRepositoryRoutes(app, plane);
  registerSettingsRoutes(app, plane);
  registerSharedMemoryRoutes(app, plane);
  // The ordinary unary /infer without fastify's request machinery (fast-infer.ts). Replicas that
  // relay sequences keep the route, which knows where a sequence lives.
  if (!routing && options.directInfer !== false) {
    const restrictions = options.restrictions ?? new Map();
    serveInferDirectly(app.server, { plane, edge, sharedMemory: shm, maxInputSize: limits.maxInputSize, restrictions });
    // On plain HTTP, most of them are read off the socket before node's server sees them.
    if (!options.tls && options.inferLane !== false) {
      serveInferLane(app.server, nodeConnectionListeners, {
        plane, edge, sharedMemory: shm, maxInputSize: limits.maxInputSize, restrictions,
        headerTimeoutMs: limits.headerTimeoutMs, requestTimeoutMs: limits.requestTimeoutMs, compressThreshold, guard,
      });
    }
  }
  // After routeByHeader, which wraps the 'request' listeners there are: a relayed request counts too.
  app.server.prependListener('request', (req) => guard.established(req.socket));
  return app;
}

const isOpenAiRoute = (request: FastifyRequest) => request.routeOptions.url?.startsWith('/v1/') === true;

export async function startHttpServer(server: Server, options: HttpServerOptions): Promise<HttpServerHandle> {
  const app = buildHttpApp(server, options);
  await app.listen({ port: options.port, host: options.host ?? '0.0.0.0', ...(options.exclusive ? { exclusive: true } : {}) });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { port, app, close: (graceMs = 0) => closeHttpServer(app, graceMs) };
}
