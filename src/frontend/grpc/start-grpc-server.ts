import { Server as GrpcServer, ServerCredentials, loadPackageDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { encodeInferResponse, encodeStreamInferResponse } from '../../protocol/grpc/index.js';
import { loadProtos } from './load-protos.js';
import { createLogger } from '../../logger.js';
import type { Server } from '../../server/types.js';
import { createSharedMemoryRegistry, type SharedMemoryRegistry } from '../shm/index.js';
import { modelInferHandler } from './model-infer.js';
import { modelStreamInferHandler } from './model-stream-infer.js';
import { repositoryHandlers } from './repository-handlers.js';
import { healthHandlers, serverHandlers } from './server-handlers.js';
import { settingsHandlers } from './settings-handlers.js';
import { sharedMemoryHandlers } from './shared-memory-handlers.js';
import { createTraceSettings, type TraceSettings } from './trace-settings.js';

export interface GrpcServerOptions {
  port: number;
  /** Default 0.0.0.0. */
  host?: string;
  /** Largest message in either direction; default 2 GiB - 1 (tensors travel in one message). */
  maxMessageBytes?: number;
  /** Shared with the HTTP front end; a private registry is made when absent. */
  sharedMemory?: SharedMemoryRegistry;
  /** Shared with the HTTP front end; a private store is made when absent. */
  traceSettings?: TraceSettings;
}

export interface GrpcServerHandle {
  /** The bound port (the real one when `port` was 0). */
  port: number;
  /** Stop accepting calls; in-flight calls get a grace second, then are cancelled. */
  close(): Promise<void>;
}

const log = createLogger('grpc');
const MAX_MESSAGE = 2 ** 31 - 1;
const CLOSE_GRACE_MS = 1000;

interface Packages {
  inference: { GRPCInferenceService: { service: ServiceDefinition } };
  grpc: { health: { v1: { Health: { service: ServiceDefinition } } } };
}

let packages: Packages | undefined;

/** The inference service with the hand-written encoders on the hot RPCs' responses. */
function inferenceService(p: Packages): ServiceDefinition {
  const def = { ...p.inference.GRPCInferenceService.service };
  def.ModelInfer = { ...def.ModelInfer!, responseSerialize: encodeInferResponse as (v: unknown) => Buffer };
  def.ModelStreamInfer = { ...def.ModelStreamInfer!, responseSerialize: encodeStreamInferResponse as (v: unknown) => Buffer };
  return def;
}

/** Serve `inference.GRPCInferenceService` and `grpc.health.v1.Health` for `server`. */
export async function startGrpcServer(server: Server, options: GrpcServerOptions): Promise<GrpcServerHandle> {
  packages ??= loadPackageDefinition(loadProtos()) as unknown as Packages;
  const ownShm = options.sharedMemory === undefined;
  const shm = options.sharedMemory ?? createSharedMemoryRegistry();
  const trace = options.traceSettings ?? createTraceSettings();
  const max = options.maxMessageBytes ?? MAX_MESSAGE;

  const grpcServer = new GrpcServer({
    'grpc.max_receive_message_length': max,
    'grpc.max_send_message_length': max,
  });
  grpcServer.addService(inferenceService(packages), {
    ...serverHandlers(server),
    ...repositoryHandlers(server),
    ...sharedMemoryHandlers(shm),
    ...settingsHandlers(trace),
    ModelInfer: modelInferHandler(server, shm),
    ModelStreamInfer: modelStreamInferHandler(server, shm),
  });
  grpcServer.addService(packages.grpc.health.v1.Health.service, healthHandlers(server));

  const host = options.host ?? '0.0.0.0';
  const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${options.port}` : `${host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    grpcServer.bindAsync(address, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  log.info(`Started GRPCInferenceService at ${host}:${port}`);

  return {
    port,
    close: () => new Promise<void>((resolve) => {
      const done = () => {
        if (ownShm) shm.unregister();
        resolve();
      };
      const timer = setTimeout(() => { grpcServer.forceShutdown(); done(); }, CLOSE_GRACE_MS);
      grpcServer.tryShutdown(() => { clearTimeout(timer); done(); });
    }),
  };
}
