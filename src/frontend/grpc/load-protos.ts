import { fileURLToPath } from 'node:url';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

/** Folder holding grpc_service.proto, model_config.proto and health.proto (pure data in protocol/). */
const PROTO_DIR = fileURLToPath(new URL('../../protocol/grpc/', import.meta.url));

/**
 * Decoding options shared by the server and the client. int64 becomes a decimal string
 * (uint64 sequence ids and UINT64 contents keep full precision); bytes stay Buffers that view
 * the received message (no copy).
 */
const PROTO_LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

/**
 * The package definition of `inference.GRPCInferenceService` and `grpc.health.v1.Health`.
 * Reads the .proto files once per call; callers keep the result.
 */
export function loadProtos(): PackageDefinition {
  return loadSync(['grpc_service.proto', 'health.proto'], PROTO_LOADER_OPTIONS);
}
