import { Server as GrpcServer, loadPackageDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { encodeInferResponse, encodeStreamInferResponse } from '../../protocol/grpc/index.js';
import { boundedInferDeserializer } from './bounded-infer-deserializer.js';
import { listenGrpc } from './listen-grpc.js';
import { loadProtos } from './load-protos.js';
import { createLogger } from '../../logger.js';
import type { Server } from '../../server/index.js';
import { disabledSharedMemory, type SharedMemoryRegistry } from '../shm/index.js';
import { restrictGrpcHandlers, type RestrictionTable } from '../restrict/index.js';
import { modelInferAnswer, modelInferHandler } from './model-infer.js';
import { serveModelInferDirectly } from './fast-model-infer.js';
import { lastHttp2Server } from './guard-sessions.js';
import { modelStreamInferHandler } from './model-stream-infer.js';
import { repositoryHandlers } from './repository-handlers.js';
import { serverCredentials, type GrpcTlsOptions } from './server-credentials.js';
import { healthHandlers, serverHandlers } from './server-handlers.js';
import { settingsHandlers } from './settings-handlers.js';
import { keepaliveChannelOptions, type GrpcKeepaliveOptions } from './grpc-keepalive.js';
import { sharedMemoryHandlers } from './shared-memory-handlers.js';
import { createDataPlane, type DataPlane } from '../../dataplane/index.js';
import { createGrpcForwarder, keepRawBytes, passBytes, type GrpcForwarder, type SequenceOwners } from '../forward/index.js';
import { StreamBudget } from '../stream/index.js';


export interface GrpcServerOptions {
  /**
   * Serve unary ModelInfer on the HTTP/2 stream directly (fast-model-infer.ts; default true).
   * false leaves every call to grpc-js, e.g. to compare the two.
   */
  directInfer?: boolean;
  port: number;
  /** Default 0.0.0.0. */
  host?: string;
  /**
   * Largest request message, as sent and once decompressed (grpc-js checks both against one
   * limit, stopping the inflater there); default 64 MiB, HTTP's default input size, so a tensor
   * that fits one front end fits the other. Responses may reach 2 GiB - 1, as Triton's.
   */
  maxInputBytes?: number;
  /** Open connections at once; default 1024. */
  maxConnections?: number;
  /**
   * Connections that have not yet completed TLS and the HTTP/2 preface and SETTINGS, at most; one
   * more closes the oldest of them. Default 256 (and never more than `maxConnections`).
   */
  maxPendingConnections?: number;
  /** A connection that has not completed TLS and the HTTP/2 preface and SETTINGS within this is closed; default 5000; 0 = never. */
  handshakeTimeoutMs?: number;
  /** A connection with no call open that has sent nothing for this long is closed with GOAWAY; default 60000; 0 = never. */
  idleTimeoutMs?: number;
  /** Calls in flight on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS); default 128. */
  maxConcurrentStreams?: number;
  /** Serve TLS (tritonserver's --grpc-use-ssl / --grpc-use-ssl-mutual); plain text when absent. */
  tls?: GrpcTlsOptions;
  /** Shared with the HTTP front end; absent, client shared memory is refused (--allow-client-shm=false). */
  sharedMemory?: SharedMemoryRegistry;
  /** Categories that demand a header (--grpc-restricted-protocol); absent or empty: every RPC is open. */
  restrictions?: RestrictionTable;
  /**
   * The data plane to serve (shared with the HTTP front end: one trace-settings store); one over
   * `server` and `sharedMemory` is made when absent.
   */
  dataPlane?: DataPlane;
  /** Keepalive pings and connection age (tritonserver's --grpc-keepalive-* flags); gRPC core's defaults when absent. */
  keepalive?: GrpcKeepaliveOptions;
  /** Inference request headers (metadata keys) matching this are passed as request parameters (--grpc-header-forward-pattern). */
  headerForwardPattern?: RegExp;
  /**
   * serve --replicas: relay ModelInfer and ModelStreamInfer requests of sequences other replicas
   * own to them. Absent (a single server, or a replica's private port) nothing is relayed.
   */
  sequenceOwners?: SequenceOwners;
  /** Bind the port in this process even under node:cluster (a replica's private port). */
  exclusive?: boolean;
  /**
   * The account of ModelStreamInfer responses waiting for clients (--stream-buffer-bytes,
   * --stream-buffer-total-bytes), shared with the HTTP front end; one with the defaults when absent.
   */
  streamBudget?: StreamBudget;
}

export interface GrpcServerHandle {
  /** The bound port (the real one when `port` was 0). */
  port: number;
  /**
   * Stop accepting connections and calls: open ModelStreamInfer streams end (OK) once their
   * requests are done, other calls get `graceMs` (default 1000) to finish, then are cancelled.
   */
  close(graceMs?: number): Promise<void>;
  /** Unary ModelInfer calls served on the HTTP/2 stream directly (fast-model-infer.ts) so far. */
  directInferCalls(): number;
}

const log = createLogger('grpc');
/** Responses: gRPC's int32 message bound, as tritonserver sets it (MAX_GRPC_MESSAGE_SIZE). */
const MAX_SEND_BYTES = 2 ** 31 - 1;
/**
 * Defaults: HTTP's 64 MiB input size and 1024 connections; 128 calls per connection (nginx's
 * HTTP/2 default; a client with more in flight waits for a slot, it is not refused). A quarter of
 * the connections may be waiting for their handshake, for at most 5 s: a client's TLS and preface
 * take a round trip or two, and silent sockets are gone well within 10 s. A connection with no
 * call is closed after 60 s of silence, nearly HTTP's 65 s keep-alive (gRPC clients reconnect on
 * their next call by themselves).
 */
export const GRPC_DEFAULTS = Object.freeze({
  maxInputBytes: 64 * 2 ** 20, maxConnections: 1024, maxConcurrentStreams: 128,
  maxPendingConnections: 256, handshakeTimeoutMs: 5000, idleTimeoutMs: 60_000,
});
const CLOSE_GRACE_MS = 1000;

interface Packages {
  inference: { GRPCInferenceService: { service: ServiceDefinition } };
  grpc: { health: { v1: { Health: { service: ServiceDefinition } } } };
}

let packages: Packages | undefined;

/**
 * The inference service with the hand-written codecs on the hot RPCs: the request decoder bounds
 * what it builds (protobufjs turns 8 MiB of empty `inputs` entries into 1.4 GB of objects).
 */
function inferenceService(p: Packages, forwarding: boolean): ServiceDefinition {
  const def = { ...p.inference.GRPCInferenceService.service };
  // Forwarding (serve --replicas): requests keep their bytes to be relayed, and relayed answers are bytes already.
  const requestDeserialize = forwarding ? keepRawBytes(boundedInferDeserializer()) : boundedInferDeserializer();
  const unary = encodeInferResponse as (v: unknown) => Buffer;
  const stream = encodeStreamInferResponse as (v: unknown) => Buffer;
  def.ModelInfer = { ...def.ModelInfer!, requestDeserialize, responseSerialize: forwarding ? passBytes(unary) : unary };
  // Stream responses are encoded by the handler, which accounts their bytes (model-stream-infer.ts).
  def.ModelStreamInfer = { ...def.ModelStreamInfer!, requestDeserialize, responseSerialize: passBytes(stream) };
  return def;
}

/** Serve `inference.GRPCInferenceService` and `grpc.health.v1.Health` for `server`. */
export async function startGrpcServer(server: Server, options: GrpcServerOptions): Promise<GrpcServerHandle> {
  packages ??= loadPackageDefinition(loadProtos()) as unknown as Packages;
  const shm = options.sharedMemory ?? disabledSharedMemory();
  const restrictions = options.restrictions ?? new Map();
  const plane = options.dataPlane ?? createDataPlane(server, options.sharedMemory ? { sharedMemory: options.sharedMemory } : {});
  const credentials = serverCredentials(options.tls);

  const grpcServer = new GrpcServer({
    'grpc.max_receive_message_length': options.maxInputBytes ?? GRPC_DEFAULTS.maxInputBytes,
    'grpc.max_send_message_length': MAX_SEND_BYTES,
    'grpc.max_concurrent_streams': options.maxConcurrentStreams ?? GRPC_DEFAULTS.maxConcurrentStreams,
    ...keepaliveChannelOptions(options.keepalive ?? {}, log),
  });
  const openStreams = new Set<() => void>();
  const forwarder: GrpcForwarder | undefined = options.sequenceOwners ? createGrpcForwarder(options.sequenceOwners) : undefined;
  const edge = plane.edge({ headerForwardPattern: options.headerForwardPattern });
  const modelInfer = modelInferHandler(plane, edge, shm);
  grpcServer.addService(inferenceService(packages, forwarder !== undefined), restrictGrpcHandlers(restrictions, {
    ...serverHandlers(plane),
    ...repositoryHandlers(plane),
    ...sharedMemoryHandlers(plane),
    ...settingsHandlers(plane),
    ModelInfer: forwarder ? forwarder.unary(modelInfer) : modelInfer,
    ModelStreamInfer: modelStreamInferHandler(plane, shm, openStreams, edge, forwarder?.stream, options.streamBudget ?? new StreamBudget()),
  }));
  grpcServer.addService(packages.grpc.health.v1.Health.service, restrictGrpcHandlers(restrictions, healthHandlers(plane)));

  const host = options.host ?? '0.0.0.0';
  const listener = await listenGrpc(grpcServer, credentials, {
    host: host.replace(/^\[(.*)\]$/, '$1'), port: options.port, plainText: !options.tls,
    limits: {
      maxConnections: options.maxConnections ?? GRPC_DEFAULTS.maxConnections,
      maxPending: options.maxPendingConnections ?? GRPC_DEFAULTS.maxPendingConnections,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? GRPC_DEFAULTS.handshakeTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs ?? GRPC_DEFAULTS.idleTimeoutMs,
    },
    ...(options.exclusive ? { exclusive: true } : {}),
  });
  const port = listener.port;
  // Unary ModelInfer on the HTTP/2 stream itself (fast-model-infer.ts). A restricted inference
  // category and relayed sequences keep grpc-js's handler, which checks and relays them.
  const direct = !forwarder && !restrictions.has('inference') && options.directInfer !== false
    ? serveModelInferDirectly(lastHttp2Server(grpcServer), modelInferAnswer(plane, edge, shm), options.maxInputBytes ?? GRPC_DEFAULTS.maxInputBytes)
    : undefined;
  log.info(`Started GRPCInferenceService at ${host}:${port}${options.tls ? (options.tls.mutual ? ' (TLS, client certificates required)' : ' (TLS)') : ''}`);

  return {
    port,
    directInferCalls: () => direct?.calls ?? 0,
    // Within the grace: grpc-js's graceful shutdown, then the clients closing their connections
    // (the last responses reach them first). Past it: every session and socket destroyed.
    close: (graceMs = CLOSE_GRACE_MS) => new Promise<void>((resolve) => {
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        forwarder?.close();
        resolve();
      };
      listener.close();
      for (const end of [...openStreams]) end();
      const timer = setTimeout(() => {
        grpcServer.forceShutdown();
        listener.destroyConnections();
        done();
      }, graceMs);
      grpcServer.tryShutdown(() => { void listener.connectionsClosed().then(done); });
    }),
  };
}
