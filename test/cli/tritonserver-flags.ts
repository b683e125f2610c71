/**
 * Every long option of `tritonserver`, as src/command_line_parser.cc of
 * triton-inference-server/server declares them (TritonParser::SetupOptions), read at commit
 * 0299e638036b53bd5426fc2051161dc1da484358, plus the six later revisions of the file add
 * (--model-config-name, --enable-peer-access, --grpc-infer-thread-count,
 * --grpc-max-response-pool-size, --allow-client-shm, --http-max-input-size). Includes the options of optional builds (SageMaker, Vertex AI,
 * tracing) and the deprecated ones, since scripts still pass them.
 */
export const TRITONSERVER_FLAGS: readonly string[] = [
  // (global)
  'help',
  // Server
  'id', 'exit-timeout-secs',
  // Logging
  'log-verbose', 'log-info', 'log-warning', 'log-error', 'log-format', 'log-file',
  // Model Repository
  'model-store', 'model-repository', 'exit-on-error', 'disable-auto-complete-config', 'strict-readiness',
  'model-control-mode', 'repository-poll-secs', 'load-model', 'model-config-name', 'model-load-thread-count',
  'model-load-retry-count', 'model-namespacing', 'enable-peer-access',
  // HTTP
  'allow-http', 'http-address', 'http-port', 'reuse-http-port', 'http-header-forward-pattern', 'http-thread-count',
  'http-restricted-api', 'http-max-input-size',
  // GRPC
  'allow-grpc', 'grpc-address', 'grpc-port', 'reuse-grpc-port', 'grpc-header-forward-pattern', 'grpc-infer-thread-count',
  'grpc-infer-allocation-pool-size', 'grpc-max-response-pool-size', 'grpc-use-ssl', 'grpc-use-ssl-mutual',
  'grpc-server-cert', 'grpc-server-key', 'grpc-root-cert', 'grpc-infer-response-compression-level',
  'grpc-keepalive-time', 'grpc-keepalive-timeout', 'grpc-keepalive-permit-without-calls',
  'grpc-http2-max-pings-without-data', 'grpc-http2-min-recv-ping-interval-without-data', 'grpc-http2-max-ping-strikes',
  'grpc-max-connection-age', 'grpc-max-connection-age-grace', 'grpc-restricted-protocol',
  // Sagemaker
  'allow-sagemaker', 'sagemaker-port', 'sagemaker-safe-port-range', 'sagemaker-thread-count',
  // Vertex
  'allow-vertex-ai', 'vertex-ai-port', 'vertex-ai-thread-count', 'vertex-ai-default-model',
  // Metrics
  'allow-metrics', 'allow-gpu-metrics', 'allow-cpu-metrics', 'metrics-address', 'metrics-port', 'metrics-interval-ms',
  'metrics-config',
  // Tracing
  'trace-config',
  // Backend
  'backend-directory', 'backend-config',
  // Repository Agent
  'repoagent-directory',
  // Response Cache
  'cache-config', 'cache-directory',
  // Rate Limiter
  'rate-limit', 'rate-limit-resource',
  // Shared Memory
  'allow-client-shm',
  // Memory/Device Management
  'pinned-memory-pool-byte-size', 'cuda-memory-pool-byte-size', 'cuda-virtual-address-size',
  'min-supported-compute-capability', 'buffer-manager-thread-count', 'host-policy', 'model-load-gpu-limit',
  // DEPRECATED
  'strict-model-config', 'response-cache-byte-size', 'trace-file', 'trace-level', 'trace-rate', 'trace-count',
  'trace-log-frequency',
];
