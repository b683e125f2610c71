/**
 * The client's view of `inference.GRPCInferenceService`, built from the project's .proto files.
 * The infer RPCs decode int64 as decimal strings (parameters and sequence ids keep every digit);
 * the other RPCs decode int64 as numbers, so metadata shapes, statistics and config dims read as
 * they do over HTTP. Loaded once per process, on the first gRPC client.
 */
import { fileURLToPath } from 'node:url';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { loadSync, type Options } from '@grpc/proto-loader';

const PROTO_DIR = fileURLToPath(new URL('../../protocol/grpc/', import.meta.url));
const STREAMED_INT64 = new Set(['ModelInfer', 'ModelStreamInfer']);

let service: ServiceDefinition | undefined;

function load(longs: typeof String | typeof Number): ServiceDefinition {
  const options: Options = { keepCase: true, longs, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_DIR] };
  return loadSync(['grpc_service.proto'], options)['inference.GRPCInferenceService'] as ServiceDefinition;
}

export function inferenceServiceDefinition(): ServiceDefinition {
  if (service) return service;
  const exact = load(String);
  const plain = load(Number);
  service = Object.fromEntries(Object.keys(plain).map((name) => [name, STREAMED_INT64.has(name) ? exact[name]! : plain[name]!]));
  return service;
}
