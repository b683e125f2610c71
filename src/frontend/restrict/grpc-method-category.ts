import type { RestrictedCategory } from './restricted-category.js';

/**
 * Each RPC of inference.GRPCInferenceService and grpc.health.v1.Health, by method name, with the
 * category tritonserver's grpc_server.cc checks for it (grpc.health.v1 Check counts as health).
 */
export const GRPC_METHOD_CATEGORY: Readonly<Record<string, RestrictedCategory>> = {
  ServerLive: 'health',
  ServerReady: 'health',
  ModelReady: 'health',
  Check: 'health',
  ServerMetadata: 'metadata',
  ModelMetadata: 'metadata',
  ModelInfer: 'inference',
  ModelStreamInfer: 'inference',
  ModelConfig: 'model-config',
  ModelStatistics: 'statistics',
  RepositoryIndex: 'model-repository',
  RepositoryModelLoad: 'model-repository',
  RepositoryModelUnload: 'model-repository',
  SystemSharedMemoryStatus: 'shared-memory',
  SystemSharedMemoryRegister: 'shared-memory',
  SystemSharedMemoryUnregister: 'shared-memory',
  CudaSharedMemoryStatus: 'shared-memory',
  CudaSharedMemoryRegister: 'shared-memory',
  CudaSharedMemoryUnregister: 'shared-memory',
  TraceSetting: 'trace',
  LogSettings: 'logging',
};

/** The methods that stream (the others are unary). */
export const GRPC_STREAMING_METHODS: ReadonlySet<string> = new Set(['ModelStreamInfer']);
