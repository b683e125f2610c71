/**
 * The one catalog of coded errors. Every error the server raises is created here, so its code,
 * Triton kind and message shape are declared once; `protocol/status-table.ts` maps kinds to HTTP
 * and gRPC statuses. Unknown throws become INTERNAL with the cause kept (`toTributaryError`).
 *
 * Longer than our other files on purpose: one catalog is the point (every code declared and reviewed
 * in one place, and held to docs/errors.md by test/docs/errors-doc.test.ts); entries are grouped
 * under area headings.
 */

/**
 * Triton's error kinds (TRITONSERVER_Error_Code): the one list. The status table, the client, the
 * sandbox's ModelError and types/bls.d.ts take the type from here.
 */
const ERROR_KINDS = [
  'UNKNOWN', 'INTERNAL', 'NOT_FOUND', 'INVALID_ARG', 'UNAVAILABLE', 'UNSUPPORTED', 'ALREADY_EXISTS', 'CANCELLED',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

const KIND_SET: ReadonlySet<string> = new Set(ERROR_KINDS);

/** For kinds that arrive untyped (from a script's sandbox or a remote status). */
export function isErrorKind(s: unknown): s is ErrorKind {
  return typeof s === 'string' && KIND_SET.has(s);
}

export class TributaryError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  /** Optional HTTP status override (e.g. 413 for a body past the size limit). */
  readonly httpStatus?: number;

  constructor(code: string, kind: ErrorKind, message: string, options?: { cause?: unknown; httpStatus?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TributaryError';
    this.code = code;
    this.kind = kind;
    if (options?.httpStatus !== undefined) this.httpStatus = options.httpStatus;
  }

  /** The same error with a path prefixed to its message ("pipeline 'ocr', step 'rec': ..."). */
  withContext(prefix: string): TributaryError {
    const e = new TributaryError(this.code, this.kind, `${prefix}: ${this.message}`, {
      cause: this.cause,
      ...(this.httpStatus === undefined ? {} : { httpStatus: this.httpStatus }),
    });
    return e;
  }
}

type Template<A extends unknown[]> = (...args: A) => string;

interface ErrorDef<A extends unknown[]> {
  readonly code: string;
  readonly kind: ErrorKind;
  /** The entry's own HTTP status, when it is not the kind's. */
  readonly httpStatus: number | undefined;
  (...args: A): TributaryError;
  /** True when `e` was created by this definition. */
  is(e: unknown): boolean;
}

function define<A extends unknown[]>(code: string, kind: ErrorKind, template: Template<A>, httpStatus?: number): ErrorDef<A> {
  const make = ((...args: A) =>
    new TributaryError(code, kind, template(...args), httpStatus === undefined ? undefined : { httpStatus })) as ErrorDef<A>;
  Object.defineProperty(make, 'code', { value: code });
  Object.defineProperty(make, 'kind', { value: kind });
  Object.defineProperty(make, 'httpStatus', { value: httpStatus });
  make.is = (e: unknown): boolean => e instanceof TributaryError && e.code === code;
  return make;
}

/**
 * Tensor-level errors in Triton's words, which name the model inside the sentence (or not at all):
 * a codec raises one without the model, and the decoder that knows the model rebuilds it with it
 * (`inModel`), so Triton's sentence stays first and whole.
 */
const IN_MODEL = new WeakMap<TributaryError, (model: string) => TributaryError>();

function defineInModel<A extends unknown[]>(code: string, kind: ErrorKind, template: (model: string | undefined, ...args: A) => string): ErrorDef<A> {
  const make = ((...args: A) => {
    const e = new TributaryError(code, kind, template(undefined, ...args));
    IN_MODEL.set(e, (model) => new TributaryError(code, kind, template(model, ...args)));
    return e;
  }) as ErrorDef<A>;
  Object.defineProperty(make, 'code', { value: code });
  Object.defineProperty(make, 'kind', { value: kind });
  Object.defineProperty(make, 'httpStatus', { value: undefined });
  make.is = (e: unknown): boolean => e instanceof TributaryError && e.code === code;
  return make;
}

const q = (s: unknown) => `'${String(s)}'`;
/** Triton's " for model '<m>'" inside a sentence, left out where the model is not known. */
const forModel = (model: string | undefined) => (model === undefined ? '' : ` for model ${q(model)}`);
/** The model after Triton's sentence, where its sentence does not name it. */
const ofModel = (model: string | undefined) => (model === undefined ? '' : `; model ${q(model)}`);
/** The InferParameter field Triton's gRPC front end takes for each reserved request parameter. */
const GRPC_PARAMETER_TYPES: Readonly<Record<string, string>> = {
  sequence_id: 'int64_param or string_param', sequence_start: 'bool_param', sequence_end: 'bool_param',
  priority: 'int64_param or uint64_param', timeout: 'int64_param',
};
/** Which datatype a typed contents field carries (Triton's "of type" for data in the wrong field). */
const CONTENTS_TYPE: Readonly<Record<string, string>> = {
  bool_contents: 'BOOL', int_contents: 'INT32', int64_contents: 'INT64', uint_contents: 'UINT32',
  uint64_contents: 'UINT64', fp32_contents: 'FP32', fp64_contents: 'FP64', bytes_contents: 'BYTES',
};

/**
 * The catalog. Codes are TRB_<AREA>_<WHAT>. Add new errors here, never ad hoc.
 * Messages name the whole path and, where there is one, the fix.
 */
export const Errors = {
  // generic
  internal: define('TRB_INTERNAL', 'INTERNAL', (msg: string) => msg),
  invalidArg: define('TRB_INVALID_ARG', 'INVALID_ARG', (msg: string) => msg),
  unsupported: define('TRB_UNSUPPORTED', 'UNSUPPORTED', (msg: string) => msg),
  unavailable: define('TRB_UNAVAILABLE', 'UNAVAILABLE', (msg: string) => msg),
  notFound: define('TRB_NOT_FOUND', 'NOT_FOUND', (msg: string) => msg),
  alreadyExists: define('TRB_ALREADY_EXISTS', 'ALREADY_EXISTS', (msg: string) => msg),

  // models and repository
  modelNotFound: define('TRB_MODEL_NOT_FOUND', 'NOT_FOUND', (model: string, version?: string) =>
    version ? `Request for unknown model: ${q(model)} version ${version} is not found` : `Request for unknown model: ${q(model)} is not found`),
  // Triton's words and statuses (core model_lifecycle.cc, prefixed by the repository manager):
  // no ready version at all is NOT_FOUND, a named version that is not ready UNAVAILABLE; then its state.
  modelNoVersions: define('TRB_MODEL_NO_VERSIONS', 'NOT_FOUND', (model: string, state: string, reason?: string) =>
    `Request for unknown model: ${q(model)} has no available versions; state ${state}${reason ? `: ${reason}` : ''}`),
  modelNotReady: define('TRB_MODEL_NOT_READY', 'UNAVAILABLE', (model: string, version: string, state: string, reason?: string) =>
    `Request for unknown model: ${q(model)} version ${version} is not at ready state; state ${state}${reason ? `: ${reason}` : ''}`),
  modelLoadFailed: define('TRB_MODEL_LOAD_FAILED', 'INVALID_ARG', (model: string, reason: string) =>
    `failed to load ${q(model)}: ${reason}`),
  repositoryNotFound: define('TRB_REPOSITORY_NOT_FOUND', 'NOT_FOUND', (path: string) =>
    `model repository ${q(path)} does not exist or is not a directory`),
  // Triton's words (core model_repository_manager.cc), in every mode but explicit; then ours.
  modelControlDisabled: define('TRB_MODEL_CONTROL_DISABLED', 'UNAVAILABLE', (what: string, mode: string) =>
    `explicit model load / unload is not allowed if polling is enabled; the model control mode is ${q(mode)}: ${what} needs --model-control-mode=explicit`),
  // Triton's key phrase first; `links` says where each pipeline names the next (file:line:col).
  dependencyCycle: define('TRB_MODEL_DEPENDENCY_CYCLE', 'INVALID_ARG', (model: string, cycle: readonly string[], links: readonly string[]) =>
    `failed to load ${q(model)}: circular dependency between ensembles: ${cycle.join(' -> ')} (${links.join(', ')}); remove one of these steps to break the cycle`),

  // paths and names (src/paths/: every name from a request or a config that becomes a path)
  // Triton's words (core model_repository_manager.cc) for an empty name and a path traversal; `name`
  // is shown JSON-escaped, so control characters stay visible.
  invalidModelName: define('TRB_MODEL_NAME_INVALID', 'INVALID_ARG', (name: string, why: string, triton: 'empty' | 'traversal' | 'none' = 'none') =>
    `${triton === 'empty' ? 'Model name cannot be empty. Please enter a valid name to deploy.'
      : triton === 'traversal' ? `invalid model name '${name}', model name must not contain path traversal characters; ${why}`
        : `invalid model name '${name}': ${why}`}; a model name is one directory name (no '/', '\\', NUL, '.' or '..', at most 255 bytes)`),
  pathEscapes: define('TRB_PATH_ESCAPES', 'INVALID_ARG', (field: string, value: string, why: string, inside = 'the model directory') =>
    `${field} ${value} is refused: ${why}; it must name a file inside ${inside}`),

  // repository load API (`config` and `file:<path>` parameters; src/repository/upload-files.ts)
  loadParameterInvalid: define('TRB_LOAD_PARAMETER_INVALID', 'INVALID_ARG', (model: string, detail: string) =>
    `failed to load ${q(model)}: ${detail}`),
  // Triton's two load-failure shapes (core model_repository_manager.cc): a request that fails
  // before any version is tried (unknown model, bad `config`/`file:` parameters) is INTERNAL
  // "failed to load '<m>', failed to poll from model repository"; one whose versions fail is
  // INVALID_ARG "load failed for model '<m>': version <v> is at UNAVAILABLE state: ...;".
  loadPollFailed: define('TRB_LOAD_POLL_FAILED', 'INTERNAL', (model: string, detail: string) =>
    `failed to load ${q(model)}, failed to poll from model repository; ${detail}`),
  // The same words where the request's own content (or a file the repository refuses) is at
  // fault: the client's to fix, so INVALID_ARG where Triton says INTERNAL (docs/errors.md).
  loadRefused: define('TRB_LOAD_REFUSED', 'INVALID_ARG', (model: string, detail: string) =>
    `failed to load ${q(model)}, failed to poll from model repository; ${detail}`),
  loadVersionsFailed: define('TRB_LOAD_VERSIONS_FAILED', 'INVALID_ARG', (model: string, detail: string) =>
    `load failed for model ${q(model)}: ${detail}`),
  loadFilesTooLarge: define('TRB_LOAD_FILES_LIMIT', 'INVALID_ARG', (model: string, detail: string) =>
    `failed to load ${q(model)}: ${detail}; put a model this large in the model repository on disk instead of sending it with the load request`),
  modelFileMissing: define('TRB_MODEL_FILE_MISSING', 'INVALID_ARG', (model: string, field: string, file: string, why: string) =>
    `failed to load ${q(model)}: ${field} ${q(file)} ${why}`),

  // access control (src/frontend/restrict/: --http-restricted-api, --grpc-restricted-protocol).
  // Triton's words and statuses: HTTP 403, gRPC UNAVAILABLE.
  restricted: define('TRB_RESTRICTED', 'UNAVAILABLE', (what: 'API' | 'protocol', header: string) =>
    `This ${what} is restricted, expecting header '${header}'`, 403),
  restrictFlagInvalid: define('TRB_RESTRICT_FLAG_INVALID', 'INVALID_ARG', (flag: string, why: string) =>
    `${flag}: ${why}`),

  // client shared memory (src/frontend/shm/: --allow-client-shm, keys under /dev/shm)
  // Triton's words and status (server common.h): registering and unregistering are refused.
  clientShmDisabled: define('TRB_CLIENT_SHM_DISABLED', 'UNSUPPORTED', () =>
    `Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.`),
  // Triton's words for a key it cannot open (server shared_memory_manager.cc), then why we refuse it.
  shmKeyRefused: define('TRB_SHM_KEY_REFUSED', 'INVALID_ARG', (key: string, why: string) =>
    `Unable to open shared memory region: ${key}; the key is refused: ${why}; a key must name a regular file created with shm_open, directly in /dev/shm`),

  // configuration
  configInvalid: define('TRB_CONFIG_INVALID', 'INVALID_ARG', (problems: string) => problems),

  // requests and tensors: Triton's words (core infer_request.cc) first, our detail after them
  inputMissing: define('TRB_INPUT_MISSING', 'INVALID_ARG', (model: string, missing: readonly string[], given: readonly string[], required: number, total: number) =>
    `expected ${required === total ? `${required} inputs` : `number of inputs between ${required} and ${total}`} but got ${given.length} inputs for model ${q(model)}. `
    + `Got input(s) [${given.map(q).join(',')}], but missing required input(s) [${missing.map(q).join(',')}]. Please provide all required input(s).`),
  inputUnknown: define('TRB_INPUT_UNKNOWN', 'INVALID_ARG', (model: string, input: string, expected: string[]) =>
    `unexpected inference input ${q(input)} for model ${q(model)}; model expects: ${expected.map(q).join(', ') || '(none)'}`),
  outputUnknown: define('TRB_OUTPUT_UNKNOWN', 'INVALID_ARG', (model: string, output: string) =>
    `unexpected inference output ${q(output)} for model ${q(model)}`),
  outputDuplicate: define('TRB_OUTPUT_DUPLICATE', 'INVALID_ARG', (model: string, output: string) =>
    `output ${q(output)} already exists in request; model ${q(model)}: request each output once`),
  // Triton's words (server http_server.cc), then the output.
  outputShmConflict: define('TRB_OUTPUT_SHM_CONFLICT', 'INVALID_ARG', (output: string, other: 'classification' | 'binary_data') =>
    `Output can't set both 'shared_memory_region' and ${q(other)}; output ${q(output)}`),
  sequenceBatchSize: define('TRB_SEQUENCE_BATCH_SIZE', 'INVALID_ARG', (model: string, rows: number) =>
    `inference request to model ${q(model)} must specify batch-size 1 due to requirements of sequence batcher; got ${rows}: send each sequence's requests one row at a time`),
  datatypeMismatch: define('TRB_DATATYPE_MISMATCH', 'INVALID_ARG', (model: string, tensor: string, expected: string, got: string) =>
    `inference input ${q(tensor)} data-type is ${q(got)}, but model ${q(model)} expects ${q(expected)}`),
  // Triton's whole sentence, its note included where the model batches.
  shapeMismatch: define('TRB_SHAPE_MISMATCH', 'INVALID_ARG', (model: string, tensor: string, expected: string, got: string, batching = false) =>
    `unexpected shape for input ${q(tensor)} for model ${q(model)}. Expected ${expected}, got ${got}. ${batching
      ? 'NOTE: Setting a non-zero max_batch_size in the model config requires a batch dimension to be prepended to each input shape. If you want to specify the full shape including the batch dim in your input dims config, try setting max_batch_size to zero. See the model configuration docs for more info on max_batch_size.'
      : ''}`),
  batchTooLarge: define('TRB_BATCH_TOO_LARGE', 'INVALID_ARG', (model: string, batch: number, max: number) =>
    `inference request batch-size must be <= ${max} for ${q(model)}; got ${batch}`),
  tensorSize: define('TRB_TENSOR_SIZE', 'INVALID_ARG', (tensor: string, detail: string) => `tensor ${q(tensor)}: ${detail}`),
  // Triton's words (server http_server.cc), then ours.
  badDatatype: defineInModel('TRB_BAD_DATATYPE', 'INVALID_ARG', (model: string | undefined, tensor: string, dt: string) =>
    `invalid datatype for input ${tensor}; ${q(dt)} is not a datatype (BOOL, INT8..INT64, UINT8..UINT64, FP16, BF16, FP32, FP64, BYTES)${ofModel(model)}`),
  badRequest: define('TRB_BAD_REQUEST', 'INVALID_ARG', (msg: string) => msg),
  payloadTooLarge: define('TRB_PAYLOAD_TOO_LARGE', 'INVALID_ARG', (msg: string) => msg, 413),
  tooManyResponses: define('TRB_TOO_MANY_RESPONSES', 'INVALID_ARG', (model: string) =>
    `model ${q(model)} sent more than one response, which a unary request cannot carry; stream them with 'Accept: text/event-stream' on /infer, /generate_stream, or gRPC ModelStreamInfer`),
  featureNotEnabled: define('TRB_FEATURE_NOT_ENABLED', 'UNSUPPORTED', (feature: string, how: string) =>
    `${feature} is not enabled on this server; ${how}`),
  decoupledUnary: define('TRB_DECOUPLED_UNARY', 'UNSUPPORTED', (model: string) =>
    `ModelInfer RPC doesn't support models with decoupled transaction policy (model ${q(model)}); use a stream (gRPC ModelStreamInfer, or HTTP with Accept: text/event-stream)`),

  // request bounds, the same for HTTP and gRPC (src/protocol/request-limits.ts)
  requestTooManyInputs: define('TRB_REQUEST_TOO_MANY_INPUTS', 'INVALID_ARG', (model: string, count: number, max: number) =>
    `model ${q(model)}: the request has ${count} inputs, more than the limit of ${max}`),
  requestTooManyOutputs: define('TRB_REQUEST_TOO_MANY_OUTPUTS', 'INVALID_ARG', (model: string, count: number, max: number) =>
    `model ${q(model)}: the request asks for ${count} outputs, more than the limit of ${max}`),
  requestTooManyParameters: define('TRB_REQUEST_TOO_MANY_PARAMETERS', 'INVALID_ARG', (where: string, count: number, max: number) =>
    `${where} has ${count} parameters, more than the limit of ${max}`),
  requestParameterTooLarge: define('TRB_REQUEST_PARAMETER_TOO_LARGE', 'INVALID_ARG', (where: string, key: string, part: 'name' | 'value', bytes: number, max: number) =>
    `${where} parameter ${q(key.length > 64 ? `${key.slice(0, 64)}...` : key)}: its ${part} is ${bytes} bytes, more than the limit of ${max}`),
  requestRankTooLarge: define('TRB_REQUEST_RANK_TOO_LARGE', 'INVALID_ARG', (tensor: string, rank: number, max: number) =>
    `tensor ${q(tensor)}: the shape has ${rank} dimensions, more than the limit of ${max}`),
  // Triton's words and limit (server http_server.cc, common.h), then ours.
  requestJsonTooDeep: define('TRB_REQUEST_JSON_TOO_DEEP', 'INVALID_ARG', (what: string, max: number) =>
    `JSON nesting depth exceeds maximum allowed limit (${max}); the ${what} JSON nests arrays and objects more than ${max} levels deep: tensor 'data' may nest only as deep as its shape (or be flat)`),

  requestJsonInvalid: define('TRB_REQUEST_JSON_INVALID', 'INVALID_ARG', (what: string, detail: string) =>
    `failed to parse the ${what} JSON: ${detail}`),
  // Never sent: an inference body is decoded from JSON.parse first, and a decoder that meets an
  // integer past 2^53 (perhaps rounded) throws this so the body is parsed again exactly.
  requestJsonInexact: define('TRB_REQUEST_JSON_INEXACT', 'INTERNAL', (where: string) =>
    `${where} holds an integer past 2^53 that JSON.parse may have rounded; the body must be parsed exactly`),
  requestFieldInvalid: define('TRB_REQUEST_FIELD_INVALID', 'INVALID_ARG', (what: string, detail: string) =>
    `${what}: ${detail}`),

  // API settings and registries (src/dataplane/: one set of rules for HTTP and gRPC)
  traceSettingInvalid: define('TRB_TRACE_SETTING_INVALID', 'INVALID_ARG', (setting: string, why: string) =>
    `${setting} ${why}`),
  traceSettingUnknown: define('TRB_TRACE_SETTING_UNKNOWN', 'INVALID_ARG', (setting: string, known: string[]) =>
    `unknown trace setting ${q(setting)}; known: ${known.join(', ')}`),
  traceSettingPerVersion: define('TRB_TRACE_SETTING_PER_VERSION', 'INVALID_ARG', (model: string) =>
    `trace settings of model ${q(model)} are per model, not per version; leave the version out (drop /versions/{v} from the path)`),
  logSettingInvalid: define('TRB_LOG_SETTING_INVALID', 'INVALID_ARG', (setting: string, must: string, got: unknown) =>
    `logging setting ${q(setting)} must be ${must}, got ${JSON.stringify(got) ?? String(got)}`),
  logSettingUnknown: define('TRB_LOG_SETTING_UNKNOWN', 'INVALID_ARG', (setting: string, known: string[]) =>
    `unknown logging setting ${q(setting)}; known: ${known.join(', ')}`),
  logFileFixed: define('TRB_LOG_FILE_FIXED', 'UNSUPPORTED', () =>
    'log_file cannot be changed over the API; start the server with --log-file'),
  shmRegisterInvalid: define('TRB_SHM_REGISTER_INVALID', 'INVALID_ARG', (region: string, field: string, must: string, got?: string) =>
    `register system shared memory region ${q(region)}: ${field} must be ${must}${got === undefined ? '' : `, got ${got}`}`),
  // Triton's words (server http_server.cc, grpc_server.cc) for a register request that lacks a part.
  shmRegisterNameMissing: define('TRB_SHM_REGISTER_NAME_MISSING', 'INVALID_ARG', (kind: 'system' | 'cuda') =>
    `'region name' is necessary to register ${kind} shared memory region`),
  shmRegisterFieldMissing: define('TRB_SHM_REGISTER_FIELD_MISSING', 'INVALID_ARG', (field: string) =>
    `Shared memory register request has no ${q(field)} field`),
  cudaShmUnsupported: define('TRB_CUDA_SHM_UNSUPPORTED', 'INVALID_ARG', (region: string) =>
    `failed to register CUDA shared memory region: ${q(region)}, GPUs not supported; this server runs on CPU: use system shared memory`),
  cudaShmRegionNotFound: define('TRB_CUDA_SHM_REGION_NOT_FOUND', 'NOT_FOUND', (region: string) =>
    `Unable to find cuda shared memory region: ${q(region)}; this server runs on CPU: no CUDA region is ever registered`),

  // HTTP front end (src/frontend/http/): sizes, timeouts, malformed requests, TLS
  // Triton's words and status (server http_server.cc, data_compressor.h) for a raw body, a JSON
  // body and an inflated one past --http-max-input-size; a body with a binary section is ours.
  httpInputTooLarge: define('TRB_HTTP_INPUT_TOO_LARGE', 'INVALID_ARG', (body: 'raw' | 'json' | 'decompressed' | 'body', bytes: number | undefined, limit: number, partial = false) =>
    `${body === 'raw' ? `Raw input has a byte_size (${bytes} bytes) that exceeds the maximum allowed value of ${limit} bytes`
      : body === 'json' ? `request JSON size of ${bytes} bytes exceeds the maximum allowed input size of ${limit} bytes`
        : body === 'decompressed' ? `Decompressed data size exceeds the maximum allowed value of ${limit} bytes`
          : `the request body${bytes === undefined ? '' : ` of ${bytes} bytes`} exceeds the maximum allowed value of ${limit} bytes`
    }. Use --http-max-input-size to increase the limit.${partial ? `; it was refused when ${bytes} bytes had arrived, before its end (it was sent without a Content-Length)` : ''}`),
  // Triton's words and status (server http_server.cc), with Accept-Encoding: gzip, deflate.
  httpEncodingUnsupported: define('TRB_HTTP_ENCODING_UNSUPPORTED', 'UNSUPPORTED', (encoding: string) =>
    `Unsupported compression type; Content-Encoding ${q(encoding.slice(0, 64))} is not supported: use gzip, deflate or identity`),
  httpBodyUndecodable: define('TRB_HTTP_BODY_UNDECODABLE', 'INVALID_ARG', (detail: string) =>
    `could not decompress the request body (Content-Encoding): ${detail}`),
  httpTimeout: define('TRB_HTTP_TIMEOUT', 'INVALID_ARG', (what: string, secs: number, flag: string) =>
    `the request's ${what} did not arrive within ${secs} s (${flag}); the connection is closed`, 408),
  httpHeadersTooLarge: define('TRB_HTTP_HEADERS_TOO_LARGE', 'INVALID_ARG', (max: number) =>
    `the request line and headers are larger than the ${max}-byte limit`, 431),
  httpMalformed: define('TRB_HTTP_MALFORMED', 'INVALID_ARG', (detail: string) => `malformed HTTP request: ${detail}`),
  httpMediaType: define('TRB_HTTP_MEDIA_TYPE', 'INVALID_ARG', () =>
    'the Content-Type header is not a valid media type; send application/json, application/octet-stream, or none', 415),
  httpUrlTooLong: define('TRB_HTTP_URL_TOO_LONG', 'INVALID_ARG', (max: number) =>
    `a path segment of the URL is longer than ${max} characters`, 414),
  httpTlsInvalid: define('TRB_HTTP_TLS_INVALID', 'INVALID_ARG', (msg: string) => msg),
  httpPlainToTls: define('TRB_HTTP_PLAIN_TO_TLS', 'INVALID_ARG', () =>
    'this port serves HTTPS (--http-use-ssl): send the request with https://'),

  // OpenAI-compatible front end (src/frontend/openai/): /v1 requests, in OpenAI's error shape.
  openaiFieldInvalid: define('TRB_OPENAI_FIELD_INVALID', 'INVALID_ARG', (field: string, detail: string) =>
    `OpenAI request: '${field}' ${detail}`),
  openaiLimit: define('TRB_OPENAI_LIMIT', 'INVALID_ARG', (field: string, what: string, got: number, max: number, flag?: string) =>
    `OpenAI request: '${field}' ${what} ${got}; at most ${max}${flag ? ` (${flag})` : ''}`),
  openaiModelNotFound: define('TRB_OPENAI_MODEL_NOT_FOUND', 'NOT_FOUND', (model: string, why: string) =>
    `The model ${q(model)} does not exist or does not serve the OpenAI API; ${why}`),
  openaiEndpointUnsupported: define('TRB_OPENAI_ENDPOINT_UNSUPPORTED', 'INVALID_ARG', (model: string, endpoint: string, serves: string) =>
    `model ${q(model)} does not serve ${endpoint}; it serves ${serves} (its config's parameter 'openai')`),
  openaiOutputMissing: define('TRB_OPENAI_OUTPUT_MISSING', 'INTERNAL', (model: string, output: string, got: string) =>
    `model ${q(model)} answered without output ${q(output)} (it sent ${got || 'no output'}); the config's openai parameters name the output the OpenAI front end reads`),

  // gRPC front end (src/frontend/grpc/, src/protocol/grpc/): the request decoder's bounds, TLS.
  // Oversized and undecompressable messages are refused by grpc-js itself (RESOURCE_EXHAUSTED).
  grpcMalformed: define('TRB_GRPC_MALFORMED', 'INVALID_ARG', (message: string, what: string, at: number) =>
    `malformed ${message}: ${what} at byte ${at}`),
  grpcContentsTooLarge: define('TRB_GRPC_CONTENTS_TOO_LARGE', 'INVALID_ARG', (where: string, what: string, max: number) =>
    `${where}: typed contents hold more than ${max} ${what} in this request; send tensors this large in raw_input_contents, as Triton's clients do`),
  grpcTooManyRawContents: define('TRB_GRPC_TOO_MANY_RAW_CONTENTS', 'INVALID_ARG', (model: string, count: number, max: number) =>
    `model ${q(model)}: raw_input_contents has ${count} entries, more than the limit of ${max} (one entry per input)`),
  grpcTlsInvalid: define('TRB_GRPC_TLS_INVALID', 'INVALID_ARG', (msg: string) => `gRPC TLS: ${msg}`),

  // request body and fields (src/protocol/: the v2 JSON, generate and gRPC request decoders)
  requestBodyEmpty: define('TRB_REQUEST_BODY_EMPTY', 'INVALID_ARG', (what: 'inference' | 'generate', model: string) =>
    `the ${what} request for model ${q(model)} has an empty body`),
  requestBodyNotObject: define('TRB_REQUEST_BODY_NOT_OBJECT', 'INVALID_ARG', (what: 'inference' | 'generate') =>
    `the ${what} request body must be a JSON object`),
  requestInputsMissing: define('TRB_REQUEST_INPUTS_MISSING', 'INVALID_ARG', () =>
    `the inference request must have an 'inputs' array`),
  requestIdInvalid: define('TRB_REQUEST_ID_INVALID', 'INVALID_ARG', () => `request 'id' must be a string`),
  requestParametersNotObject: define('TRB_REQUEST_PARAMETERS_NOT_OBJECT', 'INVALID_ARG', (where: string) =>
    `${where} 'parameters' must be an object`),
  requestParameterType: define('TRB_REQUEST_PARAMETER_TYPE', 'INVALID_ARG', (where: string, key: string, must: string, got?: string) =>
    `${where} parameter ${q(key)} must be ${must}${got === undefined ? '' : `, got ${got}`}`),
  // A reserved request parameter of the wrong type or range, in Triton's words for each front end
  // (server http_server.cc, grpc/infer_handler.cc); then ours.
  requestParameterReserved: define('TRB_REQUEST_PARAMETER_RESERVED', 'INVALID_ARG', (key: string, transport: 'http' | 'grpc', must: string, got: string, wrongType: boolean) =>
    `${transport === 'http' ? `Unable to parse ${q(key)}`
      : key === 'priority' && !wrongType ? "invalid value for 'priority', expected value >= 0."
        : wrongType && GRPC_PARAMETER_TYPES[key] ? `invalid value type for ${q(key)} parameter, expected ${GRPC_PARAMETER_TYPES[key]}.`
          : `request parameter ${q(key)} is refused`}; request parameter ${q(key)} must be ${must}, got ${got}`),
  // Triton's words (server http_server.cc, grpc/infer_handler.cc), which differ by front end.
  requestParameterTriton: define('TRB_REQUEST_PARAMETER_TRITON', 'INVALID_ARG', (key: string, transport: 'http' | 'grpc') =>
    `${transport === 'http'
      ? "parameter keys starting with 'triton_' are reserved for Triton usage and should not be specified."
      : "parameter keys starting with 'triton_' are reserved for Triton usage. Only the following keys starting with 'triton_' are allowed: triton_enable_empty_final_response"
    }; the request has ${q(key.length > 64 ? `${key.slice(0, 64)}...` : key)}`),
  requestInputInvalid: define('TRB_REQUEST_INPUT_INVALID', 'INVALID_ARG', (index: number) =>
    `input ${index} must be an object with name, datatype, shape and data`),
  requestInputNameMissing: define('TRB_REQUEST_INPUT_NAME_MISSING', 'INVALID_ARG', (index: number) =>
    `input ${index} must have a non-empty string 'name'`),
  requestOutputsNotArray: define('TRB_REQUEST_OUTPUTS_NOT_ARRAY', 'INVALID_ARG', () => `'outputs' must be an array`),
  requestOutputInvalid: define('TRB_REQUEST_OUTPUT_INVALID', 'INVALID_ARG', (index: number) =>
    `requested output ${index} must be an object with a string 'name'`),
  // Triton's words (core infer_request.cc), then the model.
  inputDuplicate: define('TRB_INPUT_DUPLICATE', 'INVALID_ARG', (model: string, input: string) =>
    `input ${q(input)} already exists in request; model ${q(model)}: send each input once`),
  inputNoBatchDim: define('TRB_INPUT_NO_BATCH_DIM', 'INVALID_ARG', (model: string, input: string) =>
    `input ${q(input)} has no shape but model requires batch dimension for ${q(model)}`),
  inputBatchMismatch: define('TRB_INPUT_BATCH_MISMATCH', 'INVALID_ARG', (model: string, input: string, rows: number, batch: number) =>
    `input ${q(input)} batch size does not match other inputs for ${q(model)}; it has ${rows} rows, the other inputs ${batch}`),
  // Triton's words (server classification.cc), then ours.
  classificationDatatype: define('TRB_CLASSIFICATION_DATATYPE', 'INVALID_ARG', (output: string, datatype: string) =>
    `class result not available for output due to unsupported type ${q(datatype)}; output ${q(output)}: classification needs a numeric output`),
  classificationCount: define('TRB_CLASSIFICATION_COUNT', 'INVALID_ARG', (output: string, k: unknown) =>
    `output ${q(output)}: classification count must be a positive integer, got ${String(k)}`),
  generateShapeMismatch: define('TRB_GENERATE_SHAPE_MISMATCH', 'INVALID_ARG', (tensor: string, count: number, shape: string) =>
    `tensor ${q(tensor)}: ${count} value(s) do not fit the input's shape ${shape}`),

  // tensors in a request (src/protocol/, src/tensor/): fields, data and sizes
  tensorDatatypeMissing: define('TRB_TENSOR_DATATYPE_MISSING', 'INVALID_ARG', (tensor: string) =>
    `tensor ${q(tensor)}: missing 'datatype'`),
  tensorShapeMissing: define('TRB_TENSOR_SHAPE_MISSING', 'INVALID_ARG', (tensor: string) => `tensor ${q(tensor)}: missing 'shape'`),
  tensorShapeInvalid: define('TRB_TENSOR_SHAPE_INVALID', 'INVALID_ARG', (tensor: string, got?: string) =>
    `tensor ${q(tensor)}: 'shape' must be an array of non-negative integers${got === undefined ? '' : `, got ${got}`}`),
  // Triton's words (server http_server.cc) for a dimension below 0.
  tensorShapeNegative: defineInModel('TRB_TENSOR_SHAPE_NEGATIVE', 'INVALID_ARG', (model: string | undefined, tensor: string, shape: string) =>
    `invalid shape for input ${q(tensor)}: shape ${shape} contains one or more invalid dimensions; a dimension is 0 or more${ofModel(model)}`),
  tensorParameterInvalid: define('TRB_TENSOR_PARAMETER_INVALID', 'INVALID_ARG', (tensor: string, key: string, must: string, got?: string) =>
    `tensor ${q(tensor)}: parameter ${q(key)} must be ${must}${got === undefined ? '' : `, got ${got}`}`),
  tensorShmSizeMissing: define('TRB_TENSOR_SHM_SIZE_MISSING', 'INVALID_ARG', (tensor: string, region: string) =>
    `tensor ${q(tensor)}: shared_memory_region ${q(region)} needs 'shared_memory_byte_size'`),
  tensorDataMissing: define('TRB_TENSOR_DATA_MISSING', 'INVALID_ARG', (tensor: string) =>
    `tensor ${q(tensor)}: no data: give 'data', the 'binary_data_size' parameter, or shared-memory parameters`),
  tensorDataSources: define('TRB_TENSOR_DATA_SOURCES', 'INVALID_ARG', (tensor: string) =>
    `tensor ${q(tensor)}: give only one of 'data', 'binary_data_size' and shared-memory parameters`),
  tensorDataNotArray: define('TRB_TENSOR_DATA_NOT_ARRAY', 'INVALID_ARG', (tensor: string, got: string) =>
    `tensor ${q(tensor)}: 'data' must be an array, got ${got}`),
  tensorDataType: define('TRB_TENSOR_DATA_TYPE', 'INVALID_ARG', (tensor: string, datatype: string, must: string) =>
    `tensor ${q(tensor)}: ${datatype} data must be ${must}`),
  // Triton's words (server http_server.cc), then ours.
  tensorJsonDatatype: defineInModel('TRB_TENSOR_JSON_DATATYPE', 'INVALID_ARG', (model: string | undefined, tensor: string, datatype: string) =>
    `receiving ${datatype} data via JSON is not supported. Please use the binary data format for input ${tensor}; give it input parameter binary_data_size${ofModel(model)}`),
  tensorElementCount: define('TRB_TENSOR_ELEMENT_COUNT', 'INVALID_ARG', (tensor: string, shape: string, count: number, got: number, field = 'data') =>
    `tensor ${q(tensor)}: shape ${shape} has ${count} elements but ${field} has ${got}`),
  // Triton's words (server http_server.cc): 'data' with more or fewer elements than the shape.
  // Triton answers 500 (docs/errors.md).
  tensorDataCount: defineInModel('TRB_TENSOR_DATA_COUNT', 'INVALID_ARG', (model: string | undefined, tensor: string, datatype: string, shape: string, count: number, got: number) =>
    `${got > count ? `Unable to parse 'data': ${datatype === 'BYTES' ? 'shape' : 'Shape'} does not match true shape of 'data' field` : "Failed to parse 'data' field: shape does not match true shape"
    }; input ${q(tensor)}${forModel(model)}: shape ${shape} has ${count} elements but 'data' has ${got}`),
  tensorElementInvalid: define('TRB_TENSOR_ELEMENT_INVALID', 'INVALID_ARG', (tensor: string, datatype: string | undefined, index: number, must: string, got: string) =>
    `tensor ${q(tensor)}: ${datatype === undefined ? '' : `${datatype} `}element ${index} must be ${must}, got ${got}`),
  tensorElementRange: define('TRB_TENSOR_ELEMENT_RANGE', 'INVALID_ARG', (tensor: string, index: number, value: string, range: string) =>
    `tensor ${q(tensor)}: element ${index} value ${value} is out of range for ${range}`),
  tensorBytesMalformed: define('TRB_TENSOR_BYTES_MALFORMED', 'INVALID_ARG', (tensor: string, detail: string) =>
    `tensor ${q(tensor)}: BYTES ${detail}`),
  // Triton's words (core infer_request.cc) for BYTES data with more or fewer elements than the shape.
  tensorBytesCount: defineInModel('TRB_TENSOR_BYTES_COUNT', 'INVALID_ARG', (model: string | undefined, tensor: string, expected: number, got: number, detail = '') =>
    `${got > expected
      ? `unexpected number of string elements ${got} for inference input ${q(tensor)}${forModel(model)}, expecting ${expected}`
      : `expected ${expected} string elements for inference input ${q(tensor)}${forModel(model)}, got ${got}`}${detail ? `; ${detail}` : ''}`),
  tensorBytesIndicator: defineInModel('TRB_TENSOR_BYTES_INDICATOR', 'INVALID_ARG', (model: string | undefined, tensor: string, have: number, element: number) =>
    `incomplete string length indicator for inference input ${q(tensor)}${forModel(model)}, expecting 4 bytes but only ${have} bytes available. Please make sure the string length indicator is in one buffer.; element ${element} has ${have} bytes left for its 4-byte length`),
  // Triton's words (core infer_request.cc), then ours.
  tensorByteSize: defineInModel('TRB_TENSOR_BYTE_SIZE', 'INVALID_ARG', (model: string | undefined, tensor: string, got: number, datatype: string, shape: string, expected: number, count: number, size: number) =>
    `input byte size mismatch for input ${q(tensor)}${forModel(model)}. Expected ${expected}, got ${got}; ${datatype} ${shape} is ${count} elements x ${size} bytes`),
  tensorNotBytes: define('TRB_TENSOR_NOT_BYTES', 'INVALID_ARG', (tensor: string, datatype: string) =>
    `tensor ${q(tensor)}: is ${datatype}, not BYTES`),
  tensorReshape: define('TRB_TENSOR_RESHAPE', 'INVALID_ARG', (tensor: string, from: string, to: string) =>
    `tensor ${q(tensor)}: cannot reshape ${from} to ${to}`),
  outputShmTooSmall: define('TRB_OUTPUT_SHM_TOO_SMALL', 'INVALID_ARG', (model: string, output: string, size: number, need: number) =>
    `shared memory size specified with the request for output ${q(output)} (${size} bytes) should be at least ${need} bytes to hold the results; model ${q(model)}`),

  // binary tensor extension (src/protocol/binary-tensor.ts: Inference-Header-Content-Length)
  binaryHeaderLengthInvalid: define('TRB_BINARY_HEADER_LENGTH_INVALID', 'INVALID_ARG', (got: string) =>
    `Inference-Header-Content-Length must be a non-negative integer, got ${q(got)}`),
  binaryHeaderLengthTooLong: define('TRB_BINARY_HEADER_LENGTH_TOO_LONG', 'INVALID_ARG', (length: number, body: number) =>
    `Inference-Header-Content-Length ${length} is longer than the ${body}-byte request body`),
  binaryDataMissing: define('TRB_BINARY_DATA_MISSING', 'INVALID_ARG', (tensor: string) =>
    `tensor ${q(tensor)}: binary_data_size is set but the request has no binary section (send the Inference-Header-Content-Length header)`),
  binaryDataShort: define('TRB_BINARY_DATA_SHORT', 'INVALID_ARG', (tensor: string, size: number, left: number) =>
    `tensor ${q(tensor)}: binary_data_size ${size} exceeds the ${left} bytes of binary data left after the JSON header`),
  binaryDataUnclaimed: define('TRB_BINARY_DATA_UNCLAIMED', 'INVALID_ARG', (bytes: number) =>
    `${bytes} bytes of binary data after the JSON header are not claimed by any input's binary_data_size`),
  binaryDataSize: defineInModel('TRB_BINARY_DATA_SIZE', 'INVALID_ARG', (model: string | undefined, tensor: string, got: number, datatype: string, shape: string, expected: number, count: number, size: number) =>
    `input byte size mismatch for input ${q(tensor)}${forModel(model)}. Expected ${expected}, got ${got}; binary_data_size ${got} does not match ${datatype} ${shape} (${count} elements x ${size} bytes)`),
  // Triton's words (core infer_request.cc), then ours.
  rawBinaryInputCount: define('TRB_RAW_BINARY_INPUT_COUNT', 'INVALID_ARG', (model: string, count: number) =>
    `Raw request must only have 1 input (found 1) to be deduced but got ${count} inputs in ${q(model)} model configuration; a raw binary request (Inference-Header-Content-Length: 0) is for a model with one input`),
  rawBinaryBytesShape: define('TRB_RAW_BINARY_BYTES_SHAPE', 'INVALID_ARG', (model: string, input: string, shape: string) =>
    `For BYTE datatype raw input ${q(input)}, the model must have input shape [1]; model ${q(model)} gives it ${shape}`),
  rawBinaryVariableDims: define('TRB_RAW_BINARY_VARIABLE_DIMS', 'INVALID_ARG', (model: string, input: string, shape: string) =>
    `The shape of the raw input ${q(input)} can not be deduced because there are more than one variable-sized dimension; model ${q(model)} gives it ${shape}`),
  rawBinarySize: defineInModel('TRB_RAW_BINARY_SIZE', 'INVALID_ARG', (model: string | undefined, tensor: string, bytes: number, datatype: string, row: number) =>
    `input byte size mismatch for input ${q(tensor)}${forModel(model)}. Expected ${row > 0 ? Math.floor(bytes / row) * row : 0}, got ${bytes}; a raw body of ${bytes} bytes is not a whole number of ${datatype} rows of ${row} bytes`),
  // gRPC tensor contents (src/protocol/grpc/: typed contents, raw_input_contents, shared memory)
  grpcDimensionInvalid: define('TRB_GRPC_DIMENSION_INVALID', 'INVALID_ARG', (model: string, input: string, dim: string) =>
    `model ${q(model)}, input ${q(input)}: invalid dimension ${dim} in shape`),
  grpcContentsNoField: define('TRB_GRPC_CONTENTS_NO_FIELD', 'INVALID_ARG', (tensor: string, datatype: string) =>
    `tensor ${q(tensor)}: ${datatype} data must be sent in raw_input_contents: InferTensorContents has no field for ${datatype}`),
  // Triton's words (server grpc infer_handler.cc): data in a field that is not its datatype's.
  grpcContentsWrongField: defineInModel('TRB_GRPC_CONTENTS_WRONG_FIELD', 'INVALID_ARG', (model: string | undefined, tensor: string, datatype: string, field: string | undefined, given: string) =>
    `unexpected explicit tensor data for input tensor ${q(tensor)}${forModel(model)} of type ${q(CONTENTS_TYPE[given] ?? given)}, expected datatype ${q(datatype)}; ${field ? `${datatype} data goes in ${field}` : `${datatype} data must be sent in raw_input_contents`}, not ${given}`),
  // Triton's words (core infer_request.cc) for typed contents with more or fewer values than the shape.
  grpcContentsCount: defineInModel('TRB_GRPC_CONTENTS_COUNT', 'INVALID_ARG', (model: string | undefined, tensor: string, datatype: string, shape: string, count: number, got: number, field: string, size: number) =>
    `input byte size mismatch for input ${q(tensor)}${forModel(model)}. Expected ${count * size}, got ${got * size}; ${datatype} ${shape} has ${count} elements but ${field} has ${got}`),
  grpcContentsWithRaw: define('TRB_GRPC_CONTENTS_WITH_RAW', 'INVALID_ARG', (model: string, input: string) =>
    `contents field must not be specified when using raw_input_contents for ${q(input)} for model ${q(model)}`),
  grpcShmAndContents: define('TRB_GRPC_SHM_AND_CONTENTS', 'INVALID_ARG', (model: string, input: string) =>
    `unexpected 'content' provided when using shared memory for input tensor ${q(input)} for model ${q(model)}; give the data either in shared memory or in contents`),
  grpcShmParameterInvalid: define('TRB_GRPC_SHM_PARAMETER_INVALID', 'INVALID_ARG', (where: string, key: string, must: string, got?: string) =>
    `${where}: ${q(key)} must be ${must}${got === undefined ? '' : `, got ${got}`}`),
  grpcInputNoData: define('TRB_GRPC_INPUT_NO_DATA', 'INVALID_ARG', (model: string, input: string) =>
    `unable to find data for input tensor ${q(input)} for model ${q(model)} in request.; give contents, raw_input_contents or shared-memory parameters`),
  grpcRawContentsShort: define('TRB_GRPC_RAW_CONTENTS_SHORT', 'INVALID_ARG', (where: string, count: number) =>
    `${where}: raw_input_contents has ${count} entries, fewer than the inputs that need one`),
  grpcRawContentsCount: define('TRB_GRPC_RAW_CONTENTS_COUNT', 'INVALID_ARG', (model: string, expected: number, got: number) =>
    `model ${q(model)}: expected ${expected} entries in raw_input_contents (one per input not in shared memory, in input order), got ${got}`),
  grpcShmNotEnabled: define('TRB_GRPC_SHM_NOT_ENABLED', 'UNSUPPORTED', (where: string) =>
    `${where}: system shared memory is not enabled on this endpoint`),

  // system shared memory registry (src/frontend/shm/)
  shmSizeInvalid: define('TRB_SHM_SIZE_INVALID', 'INVALID_ARG', (what: string, got: number | bigint) =>
    `${what} must be a non-negative integer, got ${got}`),
  // Triton's words and status (server shared_memory_manager.cc) for a tensor placed in a region
  // that is not registered, which is every region while client shared memory is off.
  shmRegionUnknown: define('TRB_SHM_REGION_UNKNOWN', 'NOT_FOUND', (region: string, clientShmOff = false) =>
    `Unable to find shared memory region: ${q(region)}${clientShmOff ? "; client shared memory is disabled: start the server with '--allow-client-shm=true' to enable it" : ''}`),
  shmRegionNotFound: define('TRB_SHM_REGION_NOT_FOUND', 'NOT_FOUND', (region: string) =>
    `Unable to find system shared memory region: ${q(region)}`),
  shmRegionExists: define('TRB_SHM_REGION_EXISTS', 'ALREADY_EXISTS', (region: string) =>
    `shared memory region ${q(region)} already in manager`),
  shmRangeOutside: define('TRB_SHM_RANGE_OUTSIDE', 'INVALID_ARG', (verb: string, bytes: number, offset: number, region: string, size: number) =>
    `${offset >= size ? 'Invalid offset' : 'Invalid offset + byte size'} for shared memory region: ${q(region)}; cannot ${verb} ${bytes} bytes at offset ${offset}: the region holds ${size} bytes`),
  shmKeyTooSmall: define('TRB_SHM_KEY_TOO_SMALL', 'INVALID_ARG', (region: string, offset: number, bytes: number, key: string, size: number) =>
    `failed to register shared memory region ${q(region)}: invalid args; offset ${offset} + byte_size ${bytes} exceeds the size of key ${q(key)} (${size} bytes)`),
  shmKeyTruncated: define('TRB_SHM_KEY_TRUNCATED', 'INVALID_ARG', (region: string, key: string, end: number) =>
    `shared memory region ${q(region)}: key ${q(key)} ends before offset ${end} (was the object truncated?)`),
  // Triton's words (server shared_memory_manager.cc); Triton answers 500 (docs/errors.md).
  shmKeyMissing: define('TRB_SHM_KEY_MISSING', 'INVALID_ARG', (region: string, key: string) =>
    `Unable to open shared memory region: ${key}; no such key in /dev/shm for region ${q(region)} (create it with shm_open and ftruncate first)`),
  shmKeyOpenFailed: define('TRB_SHM_KEY_OPEN_FAILED', 'INVALID_ARG', (region: string, key: string, code: string) =>
    `Unable to open shared memory region: ${key}; region ${q(region)}: ${code}`),

  // server, front ends and repository operations
  httpNoRoute: define('TRB_HTTP_NO_ROUTE', 'NOT_FOUND', (method: string, path: string) => `no route for ${method} ${path}`),
  grpcListenFailed: define('TRB_GRPC_LISTEN_FAILED', 'UNAVAILABLE', (host: string, port: number, code: string) =>
    `gRPC: cannot listen on ${host}:${port} (${code}); choose another --grpc-port or --grpc-address`),
  noResponse: define('TRB_NO_RESPONSE', 'INTERNAL', (model: string) => `model ${q(model)} completed without a response`),
  // Triton's scheduler words for a request that arrives while the server stops (kept for clients that match them).
  serverDraining: define('TRB_SERVER_DRAINING', 'UNAVAILABLE', (model: string) =>
    `model ${q(model)}: Server is stopping, scheduler for model has stopped accepting new inference requests; send it to another replica`),
  drainCancelled: define('TRB_DRAIN_CANCELLED', 'UNAVAILABLE', (model: string, secs: number) =>
    `model ${q(model)}: Server is stopping: the request was still running after --exit-timeout-secs=${secs} and was cancelled; retry it on another replica`),
  // serve --replicas: the replica that owns a sequence (by the hash of its id) cannot be reached.
  sequenceOwnerUnavailable: define('TRB_SEQUENCE_OWNER_UNAVAILABLE', 'UNAVAILABLE', (sequence: string, slot: number, why: string) =>
    `sequence ${q(sequence)}: its replica ${slot} is not serving (${why}); the sequence's state was lost with it if it crashed: retry from START once the replacement is up`),
  // Triton's words (qa/L0_parameters matches "reserved for Triton usage").
  headerReserved: define('TRB_HEADER_RESERVED', 'INVALID_ARG', (model: string, header: string) =>
    `model ${q(model)}: forwarded header ${q(header)} is reserved for Triton usage and cannot be a request parameter; rename the header or narrow the header forward pattern`),
  headerPatternInvalid: define('TRB_HEADER_PATTERN_INVALID', 'INVALID_ARG', (flag: string, pattern: string, why: string) =>
    `--${flag}: ${q(pattern)} is not a regular expression (${why})`),
  restrictCategoryMissing: define('TRB_RESTRICT_CATEGORY_MISSING', 'INTERNAL', (what: string, file: string) =>
    `${what} has no access-control category; add it in ${file}`),
  repositoryPollDisabled: define('TRB_REPOSITORY_POLL_DISABLED', 'UNAVAILABLE', (mode: string) =>
    `repository poll is only available with model control mode 'poll' (the mode is ${q(mode)})`),
  modelDuplicate: define('TRB_MODEL_DUPLICATE', 'ALREADY_EXISTS', (model: string, first: string, second: string) =>
    `model ${q(model)} appears in more than one repository: ${first} and ${second}; give each a name unique across the repositories, or serve both with --model-namespacing=true`),
  // Triton's words (core model_repository_manager.cc, FindModelIdentifier), then where and the fix.
  modelAmbiguous: define('TRB_MODEL_AMBIGUOUS', 'INVALID_ARG', (model: string, repositories: readonly string[]) =>
    `There are ${repositories.length} identifiers of model ${q(model)} in global map, model namespace must be provided to resolve ambiguity. (it is in the repositories ${repositories.map(q).join(', ')}; a request names a model only, so give the models different names to reach each)`),
  validateNoInfer: define('TRB_VALIDATE_NO_INFER', 'UNSUPPORTED', () => 'validation does not run models'),
  loadNoSpace: define('TRB_LOAD_NO_SPACE', 'UNAVAILABLE', (model: string) =>
    `failed to load ${q(model)}: no space left on the server for the files of the load request`),
  loadTempDirFailed: define('TRB_LOAD_TEMP_DIR_FAILED', 'UNAVAILABLE', (model: string, code: string) =>
    `failed to load ${q(model)}: the server cannot create a temporary directory for the files of the load request (${code})`),
  clientOutputMissing: define('TRB_CLIENT_OUTPUT_MISSING', 'NOT_FOUND', (model: string, output: string, have: string[]) =>
    `the response of model ${q(model)} has no output ${q(output)} (it has ${have.map(q).join(', ') || 'none'})`),

  // command line and server flags (src/cli/, src/metrics/metrics-config.ts)
  cliArgsInvalid: define('TRB_CLI_ARGS_INVALID', 'INVALID_ARG', (command: string, detail: string) =>
    `tributary ${command}: ${detail}; see 'tributary ${command} --help'`),
  cliRepositoryRequired: define('TRB_CLI_REPOSITORY_REQUIRED', 'INVALID_ARG', () =>
    `tributary serve: --model-repository is required; see 'tributary serve --help'`),
  cliFlagExpects: define('TRB_CLI_FLAG_INVALID', 'INVALID_ARG', (flag: string, expects: string, got: string) =>
    `--${flag} expects ${expects}, got ${q(got)}`),
  cliFlagChoice: define('TRB_CLI_FLAG_CHOICE', 'INVALID_ARG', (flag: string, choices: string, got: string) =>
    `--${flag} must be ${choices}, got ${q(got)}`),
  cliFlagRefused: define('TRB_CLI_FLAG_REFUSED', 'INVALID_ARG', (flag: string, value: string, why: string, accepted: string) =>
    `--${flag}${value ? `=${value}` : ''} is refused: ${why}${accepted ? `; remove it or give ${accepted}` : '; remove it'}`),
  metricsConfigInvalid: define('TRB_METRICS_CONFIG_INVALID', 'INVALID_ARG', (setting: string, detail: string) =>
    `--metrics-config ${setting}: ${detail}`),
  metricsConfigUnknown: define('TRB_METRICS_CONFIG_UNKNOWN', 'INVALID_ARG', (setting: string, known: readonly string[]) =>
    `--metrics-config: unknown setting ${q(setting)}; known: ${known.join(', ')}`),
  cacheConfigInvalid: define('TRB_CACHE_CONFIG_INVALID', 'INVALID_ARG', (arg: string, detail: string) =>
    `--cache-config ${arg}: ${detail}`),
  captureConfigInvalid: define('TRB_CAPTURE_CONFIG_INVALID', 'INVALID_ARG', (entry: string, detail: string) =>
    `--capture-config ${entry}: ${detail}`),
  captureDirUnusable: define('TRB_CAPTURE_DIR_UNUSABLE', 'INVALID_ARG', (dir: string, why: string) =>
    `--capture-config dir=${dir}: ${why}`),
  captureSourceUnreadable: define('TRB_CAPTURE_SOURCE_UNREADABLE', 'UNAVAILABLE', (source: string, why: string) =>
    `cannot read captured requests from ${source}: ${why}`),
  captureNotFound: define('TRB_CAPTURE_NOT_FOUND', 'NOT_FOUND', (what: string, source: string) =>
    `no captured request ${what} in ${source}; 'tributary inspect ${source}' lists the captured requests`),
  graphModelNotFound: define('TRB_GRAPH_MODEL_NOT_FOUND', 'NOT_FOUND', (model: string, repositories: string) =>
    `model ${q(model)} is not in the repositories searched (${repositories}), or its config cannot be read (see 'tributary validate'); add the repository that holds it with --model-repository`),
  graphNotPipeline: define('TRB_GRAPH_NOT_PIPELINE', 'INVALID_ARG', (model: string) =>
    `model ${q(model)} is not a pipeline (no ensemble_scheduling / steps) or an experiment (no experiment block); graph draws only those`),
  scaffoldBackend: define('TRB_SCAFFOLD_BACKEND', 'INVALID_ARG', (backend: string) =>
    `new-model: --backend ${q(backend)} has no scaffold; only 'typescript'`),
  scaffoldName: define('TRB_SCAFFOLD_NAME', 'INVALID_ARG', (name: string) =>
    `new-model: ${q(name)} is not a valid model name (letters, digits, _ . -)`),
  scaffoldFlagMissing: define('TRB_SCAFFOLD_FLAG_MISSING', 'INVALID_ARG', (flag: string) =>
    `new-model: ${flag} is required (e.g. tributary new-model my_step --backend typescript --model-repository models)`),
  runModelInput: define('TRB_RUN_MODEL_INPUT', 'INVALID_ARG', (file: string, detail: string) =>
    `run-model: --input ${file}: ${detail}; give a v2 inference request body (e.g. the model's sample-request.json)`),
  runModelNotFound: define('TRB_RUN_MODEL_NOT_FOUND', 'NOT_FOUND', (model: string, repositories: string) =>
    `run-model: no model ${q(model)} in the repositories searched (${repositories}); name the model directory (<repository>/<model>)`),
  runModelUnavailable: define('TRB_RUN_MODEL_UNAVAILABLE', 'UNAVAILABLE', (model: string, reason: string) =>
    `run-model: model ${q(model)} did not load: ${reason}`),
  scaffoldExists: define('TRB_SCAFFOLD_EXISTS', 'ALREADY_EXISTS', (dir: string) =>
    `model directory ${dir} already has a config.pbtxt; choose another name or remove it`),

  // internal invariants and backend limits (src/scheduler/, src/tensor/batch.ts, backends/)
  schedulerNoInstances: define('TRB_SCHEDULER_NO_INSTANCES', 'INTERNAL', (model: string) =>
    `model ${q(model)}: a scheduler needs at least one backend instance`),
  instanceBusy: define('TRB_INSTANCE_BUSY', 'INTERNAL', (model: string, index: number) =>
    `model ${q(model)}: instance ${index} is busy`),
  // Triton's words (rate_limiter.cc) after the model name, then the fix.
  rateLimitResourceShort: define('TRB_RATE_LIMIT_RESOURCE_SHORT', 'INVALID_ARG', (model: string, resource: string, given: number, need: number) =>
    `failed to load ${q(model)}: Resource count for "${resource}" is limited to ${given} which will prevent scheduling of one or more model instances, the minimum required count is ${need}; give --rate-limit-resource=${resource}:${need} or more, or lower the instance group's rate_limiter count`),
  rateLimitResourceScope: define('TRB_RATE_LIMIT_RESOURCE_SCOPE', 'INVALID_ARG', (model: string, resource: string) =>
    `failed to load ${q(model)}: Resource "${resource}" is present as both global and device-specific resource in the model configuration; use one scope for it in every model, or rename one of them`),
  adaptiveDelayInvalid: define('TRB_ADAPTIVE_DELAY_INVALID', 'INVALID_ARG', (model: string, value: string, why: string) =>
    `failed to load ${q(model)}: parameters adaptive_queue_delay_target_p99_us = ${q(value)} ${why}`),
  ensembleNotSchedulable: define('TRB_ENSEMBLE_NOT_SCHEDULABLE', 'INTERNAL', (model: string) =>
    `model ${q(model)} is an ensemble: its steps are scheduled by its pipeline`),
  modelUnloading: define('TRB_MODEL_UNLOADING', 'UNAVAILABLE', (model: string) =>
    `model ${q(model)} is unloading: request was not executed`),
  batchEmpty: define('TRB_BATCH_EMPTY', 'INTERNAL', () => 'concatBatch of zero tensors'),
  batchTensorMismatch: define('TRB_BATCH_TENSOR_MISMATCH', 'INTERNAL', (tensor: string, got: string, first: string) =>
    `cannot batch tensor ${q(tensor)}: ${got} with ${first}`),
  ortDatatypeUnsupported: define('TRB_ORT_DATATYPE_UNSUPPORTED', 'UNSUPPORTED', (tensor: string, datatype: string) =>
    `tensor ${q(tensor)}: datatype ${datatype} is not supported by onnxruntime-node`),
  ortStringNul: define('TRB_ORT_STRING_NUL', 'INVALID_ARG', (tensor: string, index: number) =>
    `tensor ${q(tensor)}: BYTES element ${index} contains a NUL byte, which onnxruntime string tensors cannot carry`),
  ortOutputType: define('TRB_ORT_OUTPUT_TYPE', 'UNSUPPORTED', (output: string, type: string) =>
    `output ${q(output)}: onnxruntime type ${type} has no Triton datatype`),
  blsRequestNoModel: define('TRB_BLS_REQUEST_NO_MODEL', 'INVALID_ARG', (caller: string) =>
    `model ${q(caller)}: BLS request without a model name`),
  scriptIsolateShutDown: define('TRB_SCRIPT_ISOLATE_SHUT_DOWN', 'UNAVAILABLE', (model: string) =>
    `model ${q(model)}: the script's isolate was shut down`),

  // scheduling
  // Triton's words (core scheduler_utils.cc, dynamic_batch_scheduler.cc), then the model.
  queueFull: define('TRB_QUEUE_FULL', 'UNAVAILABLE', (model: string) =>
    `Exceeds maximum queue size; model ${q(model)}`),
  // Triton's message alone: its tests compare it whole (qa L0_batcher).
  timeout: define('TRB_TIMEOUT', 'UNAVAILABLE', (_model: string) => 'Request timeout expired'),
  cancelled: define('TRB_CANCELLED', 'CANCELLED', (model: string) => `model ${q(model)}: request cancelled`),
  // Streamed responses (src/frontend/stream/): a producer that cannot wait outran its client.
  streamBufferFull: define('TRB_STREAM_BUFFER_FULL', 'UNAVAILABLE', (model: string, held: number, bound: number, flag: string) =>
    `model ${q(model)}: the stream's client is not taking its responses (${held} bytes waiting, bound ${bound}, ${flag}); the request was cancelled. Read the stream as it arrives, or let the model wait for its client (a TypeScript model: await sender.send(...))`),

  // sequences
  // Triton's words (core sequence_batch_scheduler.cc, sequence_utils.h), then ours.
  sequenceUnknown: define('TRB_SEQUENCE_UNKNOWN', 'INVALID_ARG', (model: string, id: string) =>
    `inference request for sequence ${id} to model ${q(model)} must specify the START flag on the first request of the sequence`),
  sequenceMissingId: define('TRB_SEQUENCE_MISSING_ID', 'INVALID_ARG', (model: string) =>
    `inference request to model ${q(model)} must specify a non-zero or non-empty correlation ID; send it as the request's sequence_id parameter`),
  // Triton answers a request to a sequence its idle timer released as one never started.
  sequenceIdleReleased: define('TRB_SEQUENCE_IDLE_RELEASED', 'INVALID_ARG', (model: string, id: string, idleUs: number) =>
    `inference request for sequence ${id} to model ${q(model)} must specify the START flag on the first request of the sequence; it was released after being idle for more than ${idleUs} microseconds (max_sequence_idle_microseconds): start it again with the START flag`),
  sequenceCorrId: define('TRB_SEQUENCE_CORRID', 'INVALID_ARG', (model: string, input: string, id: string, datatype: string) =>
    `model ${q(model)}: correlation ID ${id} cannot be given to control input ${q(input)} of type ${datatype}`),

  // Triton's words (core infer_request.cc): a string ID for a numeric CORRID control, or the reverse.
  sequenceCorrIdType: define('TRB_SEQUENCE_CORRID_TYPE', 'INVALID_ARG', (model: string, control: string, got: 'BYTES' | 'UINT64', expected: string) =>
    `sequence batching control ${q(control)} data-type is ${q(got)}, but model ${q(model)} expects ${q(expected)}; send the sequence_id as ${expected === 'BYTES' ? 'a string' : 'an integer'}`),
  // backends
  // Triton's Python backend is the one a newcomer brings most often; it has a porting guide.
  backendUnknown: define('TRB_BACKEND_UNKNOWN', 'INVALID_ARG', (model: string, backend: string, known?: readonly string[]) =>
    `model ${q(model)}: unknown backend ${q(backend)}${known ? `; this server runs ${known.map(q).join(', ')}` : ''}${
      backend === 'python' ? '; a Python model is ported to a TypeScript one (backend: "typescript"): see docs/migrating-from-python.md' : ''}`),
  backendFailed: define('TRB_BACKEND_FAILED', 'INTERNAL', (model: string, msg: string) => `model ${q(model)}: ${msg}`),
  providerUnavailable: define('TRB_PROVIDER_UNAVAILABLE', 'UNAVAILABLE', (model: string, provider: string) =>
    `model ${q(model)}: execution provider ${q(provider)} is not available on this machine (onnxruntime-node here ships the CPU provider only); remove it from optimization.execution_accelerators`),
  scriptError: define('TRB_SCRIPT_ERROR', 'INTERNAL', (model: string, msg: string) => `model ${q(model)}: ${msg}`),
  scriptLimit: define('TRB_SCRIPT_LIMIT', 'UNAVAILABLE', (model: string, msg: string) => `model ${q(model)}: ${msg}`),
  scriptFastPathStopped: define('TRB_SCRIPT_FAST_PATH_STOPPED', 'UNAVAILABLE', (model: string, boundMs: number) =>
    `model ${q(model)}: execute() ran past fast_path_ms (${boundMs} ms) on the main thread after sending responses, so it was stopped and cannot be re-run without sending them twice; set parameter fast_path_ms to 0 for a script whose calls are sometimes long`),
  scriptOutputInvalid: define('TRB_SCRIPT_OUTPUT_INVALID', 'INTERNAL', (model: string, script: string, where: string, msg: string) =>
    `model ${q(model)}: ${script} ${where}: ${msg}`),
  scriptResponseTimeout: define('TRB_SCRIPT_RESPONSE_TIMEOUT', 'UNAVAILABLE', (model: string, ms: number, source: string) =>
    `model ${q(model)}: the decoupled script sent no final response within ${ms} ms (${source}); the request was failed and released (send { final: true } on every request's response sender)`),
  blsCycle: define('TRB_BLS_CYCLE', 'UNAVAILABLE', (model: string, chain: string[], count: number, bound = 'instance_group count') =>
    `model ${q(model)}: BLS call cycle ${chain.map(q).join(' -> ')}: every ${bound === 'instance_group count' ? 'instance' : 'in-flight slot'} of ${q(chain[chain.length - 1]!)} (${bound} ${count}) is held by a caller waiting on this call, so it would never run; raise its ${bound} or break the cycle`),

  // script imports (backends/typescript: a script's bundle holds only its model directory's files
  // and installed packages; each line is "file:line:col: import '...' is refused: why")
  scriptImportRefused: define('TRB_SCRIPT_IMPORT_REFUSED', 'INVALID_ARG', (model: string, script: string, lines: string[]) =>
    `failed to load ${q(model)}: ${script} imports what a script may not read (a script may import its model directory's files and installed packages only):\n  ${lines.join('\n  ')}`),

  // the rest of the script API (backends/typescript/bls: custom metrics, model control)
  // Triton's words where its core has them (metric_family.cc), then ours.
  scriptMetricInvalid: define('TRB_SCRIPT_METRIC_INVALID', 'INVALID_ARG', (model: string, msg: string) => `model ${q(model)}: ${msg}`),
  scriptMetricUnsupported: define('TRB_SCRIPT_METRIC_UNSUPPORTED', 'UNSUPPORTED', (kind: string, op: string) =>
    `TRITONSERVER_METRIC_KIND_${kind.toUpperCase()} does not support ${op}`),
  scriptMetricLimit: define('TRB_SCRIPT_METRIC_LIMIT', 'INVALID_ARG', (model: string, what: string, bound: number) =>
    `model ${q(model)}: ${what}: at most ${bound}; reuse the families and label sets you have (a label value per request, user or item is unbounded: put it in the log instead)`),
  scriptModelControlRefused: define('TRB_SCRIPT_MODEL_CONTROL_REFUSED', 'INVALID_ARG', (model: string, msg: string) => `model ${q(model)}: ${msg}`),

  // pipelines
  // Triton's prefix for a failure inside an ensemble (core ensemble_scheduler.cc), the step after "; ".
  stepFailed: define('TRB_STEP_FAILED', 'INTERNAL', (pipeline: string, step: string, msg: string) =>
    `in ensemble ${q(pipeline)}, ${msg}; at step ${q(step)}`),
  pipelineOutputMissing: define('TRB_PIPELINE_OUTPUT_MISSING', 'INTERNAL', (pipeline: string, outputs: string[]) =>
    `pipeline ${q(pipeline)}: output ${outputs.map(q).join(', ')} was never produced (a step returned no response, or a response without the mapped output)`),
  pipelineNotDecoupled: define('TRB_PIPELINE_NOT_DECOUPLED', 'INTERNAL', (pipeline: string) =>
    `pipeline ${q(pipeline)} is not decoupled but produced more than one set of outputs (a decoupled step sent several responses); set model_transaction_policy { decoupled: true } on the pipeline to stream them`),

  // pipeline control flow at run time (src/dataflow: skipped outputs, map:, loop:)
  pipelineOutputSkipped: define('TRB_PIPELINE_OUTPUT_SKIPPED', 'INTERNAL', (pipeline: string, output: string) =>
    `pipeline ${q(pipeline)}: output ${q(output)} was skipped on this request's path (every node producing it was skipped) and is not optional; produce it on every path or mark it optional: true`),
  pipelineMapNotList: define('TRB_PIPELINE_MAP_NOT_LIST', 'INVALID_ARG', (pipeline: string, map: string, over: string, shape: string) =>
    `pipeline ${q(pipeline)}, ${map}: tensor ${q(over)} (shape ${shape}) has no first dim to map over; send it with at least one dim`),
  pipelineMapTooManyItems: define('TRB_PIPELINE_MAP_TOO_MANY_ITEMS', 'INVALID_ARG', (pipeline: string, map: string, over: string, items: number, max: number) =>
    `pipeline ${q(pipeline)}, ${map}: tensor ${q(over)} has ${items} items, more than max_items ${max}; send fewer items or raise max_items`),
  pipelineMapItemFailed: define('TRB_PIPELINE_MAP_ITEM_FAILED', 'INTERNAL', (pipeline: string, map: string, item: number, items: number) =>
    `pipeline ${q(pipeline)}, ${map}: item ${item} (of ${items}) failed`),
  pipelineMapItemOutput: define('TRB_PIPELINE_MAP_ITEM_OUTPUT', 'INTERNAL', (pipeline: string, map: string, item: number, tensor: string) =>
    `pipeline ${q(pipeline)}, ${map}: item ${item} produced no ${q(tensor)} (skipped inside the item); every item must produce each mapped output`),
  pipelineMapShapeMismatch: define('TRB_PIPELINE_MAP_SHAPE_MISMATCH', 'INTERNAL', (pipeline: string, map: string, item: number, tensor: string, got: string, want: string) =>
    `pipeline ${q(pipeline)}, ${map}: item ${item} made ${q(tensor)} ${got} but item 0 made ${want}; items are concatenated along dim 0, so every other dim must agree (pad or resize inside the map)`),
  pipelineLoopIterationFailed: define('TRB_PIPELINE_LOOP_ITERATION_FAILED', 'INTERNAL', (pipeline: string, loop: string, iteration: number) =>
    `pipeline ${q(pipeline)}, ${loop}: iteration ${iteration} failed`),
  pipelineLoopNextMissing: define('TRB_PIPELINE_LOOP_NEXT_MISSING', 'INTERNAL', (pipeline: string, loop: string, iteration: number, from: string, carried: string) =>
    `pipeline ${q(pipeline)}, ${loop}: iteration ${iteration} produced no ${q(from)}, the next value of carried tensor ${q(carried)}`),

  // pipeline conditions at run time (src/pipeline/condition/); load-time problems go to the problem sink
  conditionNotScalar: define('TRB_PIPELINE_CONDITION_NOT_SCALAR', 'INVALID_ARG', (condition: string, tensor: string, count: number) =>
    `condition ${q(condition)}: tensor ${q(tensor)} has ${count} elements where the condition reads one value; compare a summary instead (max(), min(), any(), all(), top1())`),
  conditionParamType: define('TRB_PIPELINE_CONDITION_PARAM_TYPE', 'INVALID_ARG', (condition: string, param: string, expected: string, got: string) =>
    `condition ${q(condition)}: request parameter ${q(param)} is a ${got} but the condition uses it as a ${expected}; send it as a ${expected}`),
  conditionEmptyTensor: define('TRB_PIPELINE_CONDITION_EMPTY_TENSOR', 'INVALID_ARG', (condition: string, call: string) =>
    `condition ${q(condition)}: ${call} has no value for a tensor with no elements; test size() first`),
  conditionIndexRange: define('TRB_PIPELINE_CONDITION_INDEX_RANGE', 'INVALID_ARG', (condition: string, what: string, index: number, length: number) =>
    `condition ${q(condition)}: index ${index} is out of range for ${what}, which has ${length} items`),
  conditionLabelMissing: define('TRB_PIPELINE_CONDITION_LABEL_MISSING', 'INTERNAL', (condition: string, tensor: string, index: number, labels: number) =>
    `condition ${q(condition)}: top1(${tensor}) is class ${index} but the tensor has ${labels} labels; give its label file one line per class`),
} as const;

/**
 * Errors whose message names only the tensor (the codec that raises them does not know the model);
 * a caller that knows the model prefixes it with `withContext`.
 */
const TENSOR_LEVEL: ReadonlySet<string> = new Set([
  Errors.badDatatype, Errors.tensorDatatypeMissing, Errors.tensorShapeMissing, Errors.tensorShapeInvalid,
  Errors.tensorParameterInvalid, Errors.tensorShmSizeMissing, Errors.tensorDataMissing, Errors.tensorDataSources,
  Errors.tensorDataNotArray, Errors.tensorDataType, Errors.tensorJsonDatatype, Errors.tensorElementCount,
  Errors.tensorElementInvalid, Errors.tensorElementRange, Errors.tensorBytesMalformed, Errors.tensorByteSize,
  Errors.tensorNotBytes, Errors.tensorReshape, Errors.binaryDataMissing, Errors.binaryDataShort, Errors.binaryDataSize,
  Errors.rawBinarySize, Errors.grpcContentsNoField, Errors.grpcContentsWrongField, Errors.generateShapeMismatch,
  Errors.tensorShapeNegative, Errors.tensorDataCount, Errors.tensorBytesCount, Errors.tensorBytesIndicator, Errors.grpcContentsCount,
].map((d) => d.code));

export function isTensorLevelError(e: unknown): e is TributaryError {
  return e instanceof TributaryError && TENSOR_LEVEL.has(e.code);
}

/**
 * A tensor-level error naming its model: rebuilt with it where the message is Triton's sentence
 * (defineInModel), else prefixed "model '<m>': ".
 */
export function inModel(e: TributaryError, model: string): TributaryError {
  const rebuild = IN_MODEL.get(e);
  return rebuild ? rebuild(model) : e.withContext(`model ${q(model)}`);
}

/**
 * The most UTF-8 bytes of one message that leave the process: an error's text in a response (HTTP
 * body, gRPC status details, a stream's error_message, an SSE error event) and a log line. A script
 * may throw a message of any size; 8 KiB holds every catalog message with its whole path, and a
 * config's problem list of about a hundred lines (docs/errors.md, "Long messages").
 */
export const MAX_MESSAGE_BYTES = 8192;

/** Room kept for the " ... (N more bytes)" ending (N up to 16 digits). */
const CUT_NOTE_BYTES = 32;
const utf8 = new TextEncoder();
/** Node's native byte count where there is one; this file is also type-checked with scripts, without Node's types. */
const nodeBuffer = (globalThis as { Buffer?: { byteLength(s: string, encoding: 'utf8'): number } }).Buffer;

/** `text` within `max` UTF-8 bytes: cut at a character boundary and ended "... (N more bytes)". */
export function boundMessage(text: string, max = MAX_MESSAGE_BYTES): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short text needs no counting.
  if (text.length * 3 <= max) return text;
  const total = nodeBuffer ? nodeBuffer.byteLength(text, 'utf8') : utf8.encode(text).byteLength;
  if (total <= max) return text;
  const { read, written } = utf8.encodeInto(text, new Uint8Array(Math.max(0, max - CUT_NOTE_BYTES)));
  return `${text.slice(0, read)}... (${total - written} more bytes)`;
}

/** Wrap anything thrown into a TributaryError; unknown throws become INTERNAL with the cause kept. */
export function toTributaryError(e: unknown): TributaryError {
  if (e instanceof TributaryError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new TributaryError('TRB_INTERNAL', 'INTERNAL', msg, { cause: e });
}

/**
 * A pipeline step failed: the message names pipeline and step (code TRB_STEP_FAILED), while the
 * kind stays the cause's, so a bad input found at a step is still INVALID_ARG (HTTP 400).
 */
export function stepFailure(pipeline: string, step: string, cause: unknown): TributaryError {
  const e = toTributaryError(cause);
  const base = Errors.stepFailed(pipeline, step, e.message);
  return new TributaryError(base.code, e.kind, base.message, {
    cause,
    ...(e.httpStatus === undefined ? {} : { httpStatus: e.httpStatus }),
  });
}
