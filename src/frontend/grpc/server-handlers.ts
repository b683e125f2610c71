import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { DataPlane } from '../../dataplane/index.js';
import { modelConfigToProto } from '../../protocol/grpc/index.js';
import { unary } from './unary.js';

interface NameVersion { name: string; version?: string }

/** Health, metadata, configuration and statistics RPCs: straight translations of the data plane. */
export function serverHandlers(plane: DataPlane): UntypedServiceImplementation {
  return {
    ServerLive: unary(() => ({ live: plane.live() })),
    ServerReady: unary(() => ({ ready: plane.ready() })),
    ModelReady: unary((r: NameVersion) => {
      const ready = plane.modelReadyCheck(r.name, r.version);
      return typeof ready === 'boolean' ? { ready } : ready.then((x) => ({ ready: x }));
    }),
    ServerMetadata: unary(() => plane.serverMetadata()),
    ModelMetadata: unary((r: NameVersion) => plane.modelMetadata(r.name, r.version)),
    ModelConfig: unary((r: NameVersion) => ({ config: modelConfigToProto(plane.modelConfig(r.name, r.version)) })),
    // The statistics JSON uses the proto's field names; fields the proto lacks (Tributary's
    // step_stats, branch_stats, wall, sequence_stats) are dropped by the encoder.
    ModelStatistics: unary((r: NameVersion) => plane.modelStatistics(r.name, r.version)),
  };
}

/** grpc.health.v1.Health/Check: SERVING while the server is ready. */
export function healthHandlers(plane: DataPlane): UntypedServiceImplementation {
  return {
    Check: unary(() => ({ status: plane.ready() ? 'SERVING' : 'NOT_SERVING' })),
  };
}
