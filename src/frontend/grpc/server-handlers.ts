import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { modelConfigToProto } from '../../protocol/grpc/index.js';
import type { Server } from '../../server/types.js';
import { unary } from './unary.js';

interface NameVersion { name: string; version?: string }

const v = (version: string | undefined) => version || undefined;

/** Health, metadata, configuration and statistics RPCs: straight translations of the Server API. */
export function serverHandlers(server: Server): UntypedServiceImplementation {
  return {
    ServerLive: unary(() => ({ live: server.isLive() })),
    ServerReady: unary(() => ({ ready: server.isReady() })),
    ModelReady: unary((r: NameVersion) => ({ ready: server.modelReady(r.name, v(r.version)) })),
    ServerMetadata: unary(() => server.metadata()),
    ModelMetadata: unary((r: NameVersion) => server.modelMetadata(r.name, v(r.version))),
    ModelConfig: unary((r: NameVersion) => ({ config: modelConfigToProto(server.modelConfig(r.name, v(r.version))) })),
    // The statistics JSON uses the proto's field names; fields the proto lacks (Tributary's
    // step_stats, wall, sequence_stats) are dropped by the encoder.
    ModelStatistics: unary((r: NameVersion) => server.modelStatistics(r.name || undefined, v(r.version))),
  };
}

/** grpc.health.v1.Health/Check: SERVING while the server is ready. */
export function healthHandlers(server: Server): UntypedServiceImplementation {
  return {
    Check: unary(() => ({ status: server.isReady() ? 'SERVING' : 'NOT_SERVING' })),
  };
}
