/**
 * The one table of `tributary serve` flags: every tritonserver flag (test/cli/tritonserver-flags.ts
 * holds the list it is checked against) and our own. The parser spec, `serve --help` and the CLI
 * reference are generated from it. A flag is one of:
 * - implemented: serve.ts (or a front end's flag reader) gives it its meaning;
 * - no-effect: accepted and validated, then a warning says why it changes nothing here;
 * - refused: exit 2 naming the flag and why, unless its value is one of `accepts` (values that ask
 *   for nothing, e.g. --reuse-http-port=false), which are accepted silently.
 */
export type FlagKind = 'string' | 'bool' | 'int' | 'float' | 'list' | 'none';
type FlagStatus = 'implemented' | 'no-effect' | 'refused';

export interface ServeFlag {
  name: string;
  /** list: a string that may be repeated; none: takes no value (--disable-auto-complete-config). */
  kind: FlagKind;
  /** As shown by --help; absent when there is none. */
  default?: string;
  help: string;
  status: FlagStatus;
  /** Why a no-effect flag changes nothing, or why a refused one is refused. */
  reason?: string;
  /** Values of a refused flag that ask for nothing (compared as booleans for bool flags). */
  accepts?: readonly string[];
  /** 'tributary': a flag tritonserver does not have. */
  origin: 'triton' | 'tributary';
  group: string;
}

const CPU_ONLY = 'tributary runs models on the CPU only (ONNX Runtime CPU provider, TypeScript sandboxes); there is no GPU to configure';
const NO_POOL = 'requests are served on Node\'s event loop and ONNX Runtime\'s own threads; there is no such thread or object pool to size';
const NO_SHARED_LIBS = 'tributary\'s backends (onnxruntime, typescript, identity, ensemble) are built in; it cannot load Triton shared libraries';
// SO_REUSEPORT reached node:net's listen() in Node 22.12 (the `reusePort` option).
const NO_REUSE_PORT = `needs SO_REUSEPORT, which Node's net module offers from Node 22.12 (this is Node ${process.versions.node}); --replicas N shares the ports between processes through node:cluster instead`;

const T = 'triton' as const;
const OURS = 'tributary' as const;

export const SERVE_FLAGS: readonly ServeFlag[] = [
  // Server
  { group: 'Server', name: 'id', kind: 'string', default: 'triton', origin: T, status: 'implemented', help: 'server name in the server metadata (HTTP GET /v2, gRPC ServerMetadata), which clients compare' },
  { group: 'Server', name: 'replicas', kind: 'int', default: '1', origin: OURS, status: 'implemented', help: 'server processes sharing the HTTP and gRPC ports (node:cluster), each loading the repository; a primary replaces one that exits, sums their metrics on the one metrics port and applies load/unload to all (docs/replicas.md)' },
  { group: 'Server', name: 'exit-timeout-secs', kind: 'int', default: '30', origin: T, status: 'implemented', help: 'on SIGTERM/SIGINT readiness turns false and new inference is refused (UNAVAILABLE); in-flight requests, streams and pipelines get this long to finish, then are answered with an error. A second signal is ignored, as tritonserver does' },

  // Logging
  { group: 'Logging', name: 'log-verbose', kind: 'int', default: '0', origin: T, status: 'implemented', help: 'verbose log level; 0 turns verbose logging off' },
  { group: 'Logging', name: 'log-info', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'log info lines' },
  { group: 'Logging', name: 'log-warning', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'log warning lines' },
  { group: 'Logging', name: 'log-error', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'log error lines' },
  { group: 'Logging', name: 'log-format', kind: 'string', default: 'default', origin: T, status: 'implemented', help: 'default (LMMDD hh:mm:ss.mmm) or ISO8601' },
  { group: 'Logging', name: 'log-file', kind: 'string', origin: T, status: 'implemented', help: 'append the log to this file instead of stderr' },

  // Model repository
  { group: 'Model repository', name: 'model-repository', kind: 'list', origin: T, status: 'implemented', help: 'repository directory; a model in two repositories is not served' },
  { group: 'Model repository', name: 'model-store', kind: 'list', origin: T, status: 'implemented', help: 'the same as --model-repository (older spelling)' },
  { group: 'Model repository', name: 'exit-on-error', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'exit 1 when a model fails to load at start; false serves the models that loaded' },
  { group: 'Model repository', name: 'disable-auto-complete-config', kind: 'none', origin: T, status: 'implemented', help: 'require complete model configs (the same as --strict-model-config=true)' },
  { group: 'Model repository', name: 'strict-model-config', kind: 'bool', default: 'false', origin: T, status: 'implemented', help: 'true requires complete configs; false auto-completes them from the model files (deprecated spelling of --disable-auto-complete-config)' },
  { group: 'Model repository', name: 'strict-readiness', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'true: /v2/health/ready is true when the server is live and every model it loads is ready; false: as soon as it is live' },
  { group: 'Model repository', name: 'model-control-mode', kind: 'string', default: 'none', origin: T, status: 'implemented', help: 'none (load every model at start) | explicit (load API and --load-model) | poll (rescan the repositories)' },
  { group: 'Model repository', name: 'repository-poll-secs', kind: 'int', default: '15', origin: T, status: 'implemented', help: 'with poll mode: seconds between rescans' },
  { group: 'Model repository', name: 'load-model', kind: 'list', origin: T, status: 'implemented', help: "with explicit mode: load this model at start ('*' = every model)" },
  { group: 'Model repository', name: 'model-config-name', kind: 'string', origin: T, status: 'implemented', help: 'load configs/<name>.pbtxt instead of config.pbtxt where a model has one' },
  { group: 'Model repository', name: 'model-load-thread-count', kind: 'int', default: '4', origin: T, status: 'implemented', help: 'models loaded at once, at start and by poll' },
  { group: 'Model repository', name: 'model-load-retry-count', kind: 'int', default: '0', origin: T, status: 'implemented', help: 'retries of a model load whose versions fail' },
  { group: 'Model repository', name: 'model-namespacing', kind: 'bool', default: 'false', origin: T, status: 'implemented', help: 'each repository is a namespace: models of one name in different repositories are all served; a request for a name several hold fails, a pipeline uses its own repository\'s model first' },
  { group: 'Model repository', name: 'enable-peer-access', kind: 'bool', default: 'true', origin: T, status: 'no-effect', reason: CPU_ONLY, help: 'let GPUs access each other\'s memory' },

  // HTTP
  { group: 'HTTP', name: 'allow-http', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'serve HTTP (KServe v2 and Triton extensions)' },
  { group: 'HTTP', name: 'http-address', kind: 'string', default: '0.0.0.0', origin: T, status: 'implemented', help: 'HTTP listen address' },
  { group: 'HTTP', name: 'http-port', kind: 'int', default: '8000', origin: T, status: 'implemented', help: 'HTTP port; 0 = any free port' },
  { group: 'HTTP', name: 'reuse-http-port', kind: 'bool', default: 'false', origin: T, status: 'refused', reason: NO_REUSE_PORT, accepts: ['false'], help: 'let several servers listen on the HTTP port' },
  { group: 'HTTP', name: 'http-header-forward-pattern', kind: 'string', origin: T, status: 'implemented', help: 'Inference (/infer, /generate, /generate_stream, /v1) request headers whose whole name matches this regular expression (case-insensitive unless it starts with (?-i)) become string request parameters' },
  { group: 'HTTP', name: 'http-thread-count', kind: 'int', default: '8', origin: T, status: 'no-effect', reason: NO_POOL, help: 'threads handling HTTP requests' },
  { group: 'HTTP', name: 'http-restricted-api', kind: 'list', origin: T, status: 'implemented', help: '<categories>:<header>=<value>: requests of these categories must carry the header with the value, else 403. Categories: health, metadata, inference, shared-memory, model-config, model-repository, statistics, trace, logging, and openai (the OpenAI-compatible API, /v1; HTTP only)' },
  { group: 'HTTP', name: 'http-max-input-size', kind: 'int', default: '67108864', origin: T, status: 'implemented', help: 'largest HTTP request body in bytes, as sent and once decompressed (gzip/deflate are inflated only up to it); more is a 400 in tritonserver\'s words' },
  { group: 'HTTP', name: 'http-header-timeout-secs', kind: 'int', default: '60', origin: OURS, status: 'implemented', help: 'time a client has to send a request line and headers (also bounds the TLS handshake); then 408 and close; 0 = no limit' },
  { group: 'HTTP', name: 'http-request-timeout-secs', kind: 'int', default: '300', origin: OURS, status: 'implemented', help: 'time a client has to send a whole request; a trickled body is cut off with 408; 0 = no limit' },
  { group: 'HTTP', name: 'http-max-connections', kind: 'int', default: '1024', origin: OURS, status: 'implemented', help: 'open HTTP connections at once; past it a new one closes the oldest connection that has not sent a request yet, or is closed on arrival when all have; 0 = no limit' },
  { group: 'HTTP', name: 'http-max-pending-connections', kind: 'int', default: '256', origin: OURS, status: 'implemented', help: 'connections that have not completed TLS and a first request\'s headers, at most; one more closes the oldest of them, so silent sockets cannot take the slots of real clients (at most --http-max-connections)' },
  { group: 'HTTP', name: 'http-use-ssl', kind: 'bool', default: 'false', origin: OURS, status: 'implemented', help: 'serve HTTPS with --http-server-cert and --http-server-key' },
  { group: 'HTTP', name: 'http-use-ssl-mutual', kind: 'bool', default: 'false', origin: OURS, status: 'implemented', help: 'HTTPS that also requires a client certificate signed by --http-root-cert; implies --http-use-ssl' },
  { group: 'HTTP', name: 'http-server-cert', kind: 'string', origin: OURS, status: 'implemented', help: 'PEM server certificate (chain)' },
  { group: 'HTTP', name: 'http-server-key', kind: 'string', origin: OURS, status: 'implemented', help: 'PEM server private key' },
  { group: 'HTTP', name: 'http-root-cert', kind: 'string', origin: OURS, status: 'implemented', help: 'PEM CA certificate(s) that client certificates must chain to' },
  { group: 'HTTP', name: 'openai-port', kind: 'int', origin: OURS, status: 'implemented', help: 'also serve the OpenAI-compatible API (/v1/models, /v1/chat/completions, /v1/completions, /v1/embeddings) alone on this port, at --http-address with the HTTP flags\' bounds, TLS and restrictions; the HTTP port serves it in any case (docs/openai.md); 0 = any free port' },
  { group: 'HTTP', name: 'openai-max-tokens', kind: 'int', default: '4096', origin: OURS, status: 'implemented', help: 'largest max_tokens (or max_completion_tokens) an OpenAI chat or completions request may ask for; more is 400' },

  // gRPC
  { group: 'gRPC', name: 'allow-grpc', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'serve gRPC (inference.GRPCInferenceService)' },
  { group: 'gRPC', name: 'grpc-address', kind: 'string', default: '0.0.0.0', origin: T, status: 'implemented', help: 'gRPC listen address' },
  { group: 'gRPC', name: 'grpc-port', kind: 'int', default: '8001', origin: T, status: 'implemented', help: 'gRPC port; 0 = any free port' },
  { group: 'gRPC', name: 'reuse-grpc-port', kind: 'bool', default: 'false', origin: T, status: 'refused', reason: NO_REUSE_PORT, accepts: ['false'], help: 'let several servers listen on the gRPC port' },
  { group: 'gRPC', name: 'grpc-header-forward-pattern', kind: 'string', origin: T, status: 'implemented', help: 'gRPC metadata keys matching this regular expression become request parameters' },
  { group: 'gRPC', name: 'grpc-infer-thread-count', kind: 'int', default: '2', origin: T, status: 'no-effect', reason: NO_POOL, help: 'gRPC inference handler threads' },
  { group: 'gRPC', name: 'grpc-infer-allocation-pool-size', kind: 'int', default: '8', origin: T, status: 'no-effect', reason: NO_POOL, help: 'request/response states kept allocated for reuse' },
  { group: 'gRPC', name: 'grpc-max-response-pool-size', kind: 'int', origin: T, status: 'no-effect', reason: NO_POOL, help: 'response objects kept allocated per response queue' },
  { group: 'gRPC', name: 'grpc-use-ssl', kind: 'bool', default: 'false', origin: T, status: 'implemented', help: 'serve gRPC over TLS with --grpc-server-cert and --grpc-server-key' },
  { group: 'gRPC', name: 'grpc-use-ssl-mutual', kind: 'bool', default: 'false', origin: T, status: 'implemented', help: 'TLS that also requires a client certificate signed by --grpc-root-cert; implies --grpc-use-ssl' },
  { group: 'gRPC', name: 'grpc-server-cert', kind: 'string', origin: T, status: 'implemented', help: 'PEM server certificate (chain)' },
  { group: 'gRPC', name: 'grpc-server-key', kind: 'string', origin: T, status: 'implemented', help: 'PEM server private key' },
  { group: 'gRPC', name: 'grpc-root-cert', kind: 'string', origin: T, status: 'implemented', help: 'PEM CA certificate(s) that client certificates must chain to' },
  { group: 'gRPC', name: 'grpc-infer-response-compression-level', kind: 'string', default: 'none', origin: T, status: 'no-effect', reason: 'the gRPC front end sends inference responses uncompressed', accepts: ['none'], help: 'none | low | medium | high' },
  { group: 'gRPC', name: 'grpc-keepalive-time', kind: 'int', default: '7200000', origin: T, status: 'implemented', help: 'ms between keepalive pings' },
  { group: 'gRPC', name: 'grpc-keepalive-timeout', kind: 'int', default: '20000', origin: T, status: 'implemented', help: 'ms to wait for a keepalive ping\'s acknowledgement before closing' },
  { group: 'gRPC', name: 'grpc-keepalive-permit-without-calls', kind: 'bool', default: 'false', origin: T, status: 'implemented', help: 'allow keepalive pings with no call in flight' },
  { group: 'gRPC', name: 'grpc-http2-max-pings-without-data', kind: 'int', default: '2', origin: T, status: 'implemented', help: 'pings sent with no data frame; 0 = no limit' },
  { group: 'gRPC', name: 'grpc-http2-min-recv-ping-interval-without-data', kind: 'int', default: '300000', origin: T, status: 'implemented', help: 'ms expected between a client\'s pings with no data; faster is a ping strike' },
  { group: 'gRPC', name: 'grpc-http2-max-ping-strikes', kind: 'int', default: '2', origin: T, status: 'implemented', help: 'bad pings tolerated before GOAWAY; 0 = any number. This and the two flags above, and --grpc-keepalive-permit-without-calls, are accepted with a warning: grpc-js answers every ping (as with 0)' },
  { group: 'gRPC', name: 'grpc-max-connection-age', kind: 'int', origin: T, status: 'implemented', help: 'ms a connection may live' },
  { group: 'gRPC', name: 'grpc-max-connection-age-grace', kind: 'int', origin: T, status: 'implemented', help: 'ms a connection past its age gets to finish its calls' },
  { group: 'gRPC', name: 'grpc-restricted-protocol', kind: 'list', origin: T, status: 'implemented', help: '<categories>:<key>=<value>: calls of these categories must carry metadata triton-grpc-protocol-<key> with the value, else UNAVAILABLE' },
  { group: 'gRPC', name: 'grpc-max-input-size', kind: 'int', origin: OURS, status: 'implemented', help: 'largest gRPC request message in bytes, as sent and once decompressed; more is RESOURCE_EXHAUSTED (default: --http-max-input-size\'s value; at most 2147483647)' },
  { group: 'gRPC', name: 'grpc-max-connections', kind: 'int', default: '1024', origin: OURS, status: 'implemented', help: 'open gRPC connections at once; past it a new one closes the oldest connection still in its handshake, or is closed on arrival when all are established' },
  { group: 'gRPC', name: 'grpc-max-pending-connections', kind: 'int', default: '256', origin: OURS, status: 'implemented', help: 'connections that have not completed TLS and the HTTP/2 preface and SETTINGS, at most; one more closes the oldest of them, so silent sockets cannot take the slots of real clients (at most --grpc-max-connections)' },
  { group: 'gRPC', name: 'grpc-handshake-timeout-ms', kind: 'int', default: '5000', origin: OURS, status: 'implemented', help: 'ms a connection has to complete TLS and the HTTP/2 preface and SETTINGS; then it is closed; 0 = no limit' },
  { group: 'gRPC', name: 'grpc-idle-timeout-ms', kind: 'int', default: '60000', origin: OURS, status: 'implemented', help: 'ms a connection with no call open may send nothing (no frame, no ping); then it is closed with GOAWAY, and reset if the client has not closed it within --grpc-handshake-timeout-ms (at least 1 s) more; 0 = no limit' },
  { group: 'gRPC', name: 'grpc-max-concurrent-streams', kind: 'int', default: '128', origin: OURS, status: 'implemented', help: 'calls in flight on one gRPC connection' },

  // Streams
  { group: 'Streams', name: 'stream-buffer-bytes', kind: 'int', default: '2097152', origin: OURS, status: 'implemented', help: 'response bytes one stream (gRPC ModelStreamInfer, HTTP server-sent events) may hold for a client that has not taken them, each response counting 256 bytes more; producers that can wait (a script awaiting sender.send, a pipeline step, the next requests of a gRPC stream) pause once an eighth of it waits and resume at a sixteenth; a response past it fails its request with TRB_STREAM_BUFFER_FULL (one response alone always goes); at least 262144' },
  { group: 'Streams', name: 'stream-buffer-total-bytes', kind: 'int', default: '268435456', origin: OURS, status: 'implemented', help: 'the same bound for all streams of the server together (at least --stream-buffer-bytes); from half of it every stream that holds anything pauses its producers' },

  // Client shared memory
  { group: 'Shared memory', name: 'allow-client-shm', kind: 'bool', default: 'false', origin: T, status: 'implemented', help: 'let clients register and unregister system shared memory regions (/dev/shm keys) and place tensors in them; off, register and unregister answer 501 and status an empty list, as tritonserver does' },

  // Metrics
  { group: 'Metrics', name: 'allow-metrics', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'serve Prometheus metrics at GET /metrics' },
  { group: 'Metrics', name: 'allow-gpu-metrics', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'export GPU metric families (there are none: no GPU is used)' },
  { group: 'Metrics', name: 'allow-cpu-metrics', kind: 'bool', default: 'true', origin: T, status: 'implemented', help: 'export nv_cpu_utilization, nv_cpu_memory_total_bytes and nv_cpu_memory_used_bytes' },
  { group: 'Metrics', name: 'metrics-address', kind: 'string', default: "--http-address's value", origin: T, status: 'implemented', help: 'metrics listen address' },
  { group: 'Metrics', name: 'metrics-port', kind: 'int', default: '8002', origin: T, status: 'implemented', help: 'metrics port; 0 = any free port' },
  { group: 'Metrics', name: 'metrics-interval-ms', kind: 'float', default: '2000', origin: T, status: 'implemented', help: 'period at which the CPU gauges are sampled' },
  { group: 'Metrics', name: 'metrics-config', kind: 'list', origin: T, status: 'implemented', help: '<setting>=<value>: summary_latencies=true, summary_quantiles=0.5:0.05,..., histogram_latencies=true' },

  // Tracing
  { group: 'Tracing', name: 'trace-config', kind: 'list', origin: T, status: 'implemented', help: '[<mode>,]<setting>=<value>, repeatable: rate=<n> (1 of every n requests is traced), level=<OFF|TIMESTAMPS|TENSORS>, count=<n> (-1: no limit), mode=<triton|opentelemetry>, triton,file=<path>, triton,log-frequency=<n> (a new <path>.<i> every n traces), opentelemetry,url=<OTLP/HTTP endpoint> (default http://localhost:4318/v1/traces), opentelemetry,resource=<key>=<value>, opentelemetry,bsp_max_queue_size|bsp_schedule_delay|bsp_max_export_batch_size=<n>. The trace API changes rate, level, count, mode and file at run time' },
  { group: 'Tracing', name: 'trace-file', kind: 'string', origin: T, status: 'implemented', help: 'deprecated: --trace-config triton,file=<path>' },
  { group: 'Tracing', name: 'trace-level', kind: 'list', default: 'OFF', origin: T, status: 'implemented', help: 'deprecated: --trace-config level=<OFF|TIMESTAMPS|TENSORS>' },
  { group: 'Tracing', name: 'trace-rate', kind: 'int', default: '1000', origin: T, status: 'implemented', help: 'deprecated: --trace-config rate=<n>' },
  { group: 'Tracing', name: 'trace-count', kind: 'int', default: '-1', origin: T, status: 'implemented', help: 'deprecated: --trace-config count=<n>' },
  { group: 'Tracing', name: 'trace-log-frequency', kind: 'int', default: '0', origin: T, status: 'implemented', help: 'deprecated: --trace-config triton,log-frequency=<n>' },

  // Data capture
  { group: 'Data capture', name: 'capture-config', kind: 'list', origin: OURS, status: 'implemented', help: '<key>=<value>, repeatable: record requests whole (every pipeline step, map item, loop iteration and BLS call, with tensors, timings and errors) for tributary inspect and replay (docs/capture-and-replay.md). Where: dir=<directory> (JSON Lines; files 0600 in a 0700 directory), url=<http(s) URL> (CloudEvents, KServe inference-logger form), redis=<host>:<port> (a stream, redis-stream=<key>, default tributary:capture; redis-maxlen=<n>, default 100000). What: rate=<0..1> of top-level requests (default 1; a model config parameter capture_rate overrides it for that model), models=<a,b> (default every model), failures=<n> failed requests per second kept beyond the sampled ones (default 100), max-bytes=<n> tensor bytes per record (default 1048576; larger tensors are kept as shape, datatype and SHA-256), redact=<tensor,...> (shape, datatype and SHA-256 only). Bounds: queue=<records> (default 4096) and queue-bytes=<n> (default 67108864) waiting for the sinks, request-records=<n> per request (default 1024), file-bytes=<n> per file (default 67108864) and files=<n> kept (default 8); past a bound records are dropped and counted (tributary_capture_dropped_total). source=<ce-source> (default tributary)' },

  // Response cache
  { group: 'Response cache', name: 'cache-config', kind: 'list', origin: T, status: 'implemented', help: '<cache>,<setting>=<value>, repeatable: local,size=<bytes> (in-process LRU) or redis,host=<host> redis,port=<port> (shared by replicas; also user, password, db, connect_timeout, socket_timeout)' },
  { group: 'Response cache', name: 'cache-directory', kind: 'string', default: '/opt/tritonserver/caches', origin: T, status: 'refused', reason: 'tributary loads no cache shared libraries: its caches are built in', accepts: ['/opt/tritonserver/caches'], help: 'directory of cache shared libraries' },
  { group: 'Response cache', name: 'response-cache-byte-size', kind: 'int', default: '0', origin: T, status: 'implemented', help: 'deprecated: the same as --cache-config local,size=<bytes>' },

  // Rate limiter
  { group: 'Rate limiter', name: 'rate-limit', kind: 'string', default: 'off', origin: T, status: 'implemented', help: 'off: an instance executes as soon as it is free | execution_count: only when the resources its instance group\'s rate_limiter names are free, instances waiting for them in priority order (shared by all models)' },
  { group: 'Rate limiter', name: 'rate-limit-resource', kind: 'list', origin: T, status: 'implemented', help: '<name>:<count>[:<device>] copies of a resource (default: the most any instance asks; once one is given, every resource used must be); device 0 is the CPU, the only device' },

  // Memory and devices
  { group: 'Memory and devices', name: 'pinned-memory-pool-byte-size', kind: 'int', default: '268435456', origin: T, status: 'no-effect', reason: `pinned memory speeds copies to a GPU; ${CPU_ONLY}`, help: 'pinned host memory pool' },
  { group: 'Memory and devices', name: 'cuda-memory-pool-byte-size', kind: 'list', origin: T, status: 'refused', reason: CPU_ONLY, help: '<device>:<bytes> of CUDA memory pool' },
  { group: 'Memory and devices', name: 'cuda-virtual-address-size', kind: 'list', origin: T, status: 'refused', reason: CPU_ONLY, help: '<device>:<bytes> of CUDA virtual address space per implicit state' },
  { group: 'Memory and devices', name: 'min-supported-compute-capability', kind: 'float', origin: T, status: 'no-effect', reason: `it only selects which GPUs are used; ${CPU_ONLY}`, help: 'lowest CUDA compute capability of a GPU to use' },
  { group: 'Memory and devices', name: 'buffer-manager-thread-count', kind: 'int', default: '0', origin: T, status: 'no-effect', reason: NO_POOL, help: 'threads that copy tensor contents' },
  { group: 'Memory and devices', name: 'host-policy', kind: 'list', origin: T, status: 'no-effect', reason: 'model instances are not pinned to NUMA nodes or CPU cores', help: '<policy>,<setting>=<value> (numa-node, cpu-cores)' },
  { group: 'Memory and devices', name: 'model-load-gpu-limit', kind: 'list', origin: T, status: 'refused', reason: CPU_ONLY, help: '<device>:<fraction> of GPU memory a load may use' },

  // Backends and repository agents
  { group: 'Backends', name: 'backend-directory', kind: 'string', default: '/opt/tritonserver/backends', origin: T, status: 'refused', reason: NO_SHARED_LIBS, accepts: ['/opt/tritonserver/backends'], help: 'directory of backend shared libraries' },
  { group: 'Backends', name: 'backend-config', kind: 'list', origin: T, status: 'implemented', help: '[<backend>,]<setting>=<value>: a default for the models that do not set that parameter (no backend: every backend with the setting). typescript: memory_limit_mb, timeout_ms, type_check, isolate_spares, response_timeout_ms, allow_webassembly, fast_path_ms, ready_timeout_ms; onnxruntime: intra_op_thread_count, inter_op_thread_count, execution_mode, execution_target, worker_threshold_us' },
  { group: 'Backends', name: 'repoagent-directory', kind: 'string', default: '/opt/tritonserver/repoagents', origin: T, status: 'refused', reason: NO_SHARED_LIBS, accepts: ['/opt/tritonserver/repoagents'], help: 'directory of repository agent shared libraries' },

  // Cloud front ends
  { group: 'Cloud front ends', name: 'allow-sagemaker', kind: 'bool', default: 'false', origin: T, status: 'refused', reason: 'tributary has no SageMaker front end', accepts: ['false'], help: 'serve the SageMaker API' },
  { group: 'Cloud front ends', name: 'sagemaker-port', kind: 'int', origin: T, status: 'refused', reason: 'tributary has no SageMaker front end', help: 'SageMaker port' },
  { group: 'Cloud front ends', name: 'sagemaker-safe-port-range', kind: 'string', origin: T, status: 'refused', reason: 'tributary has no SageMaker front end', help: '<from>-<to> ports the other front ends may use' },
  { group: 'Cloud front ends', name: 'sagemaker-thread-count', kind: 'int', origin: T, status: 'refused', reason: 'tributary has no SageMaker front end', help: 'SageMaker threads' },
  { group: 'Cloud front ends', name: 'allow-vertex-ai', kind: 'bool', default: 'false', origin: T, status: 'refused', reason: 'tributary has no Vertex AI front end', accepts: ['false'], help: 'serve the Vertex AI API' },
  { group: 'Cloud front ends', name: 'vertex-ai-port', kind: 'int', origin: T, status: 'refused', reason: 'tributary has no Vertex AI front end', help: 'Vertex AI port' },
  { group: 'Cloud front ends', name: 'vertex-ai-thread-count', kind: 'int', origin: T, status: 'refused', reason: 'tributary has no Vertex AI front end', help: 'Vertex AI threads' },
  { group: 'Cloud front ends', name: 'vertex-ai-default-model', kind: 'string', origin: T, status: 'refused', reason: 'tributary has no Vertex AI front end', help: 'model of single-model requests' },

  { group: 'Help', name: 'help', kind: 'none', origin: T, status: 'implemented', help: 'print this help' },
];

/**
 * The flags that decide how a repository's models are read and checked: `tributary validate`
 * takes these same rows, so that it judges a repository as `serve` would load it.
 */
export const REPOSITORY_FLAG_NAMES = [
  'model-repository', 'model-store', 'strict-model-config', 'disable-auto-complete-config', 'model-config-name', 'backend-config', 'model-namespacing',
] as const;
