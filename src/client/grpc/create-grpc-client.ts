/**
 * The gRPC client: `inference.GRPCInferenceService` over grpc-js, one channel per client. Tensors
 * always travel as raw contents; `stream` runs one request on its own ModelStreamInfer call, so
 * cancelling it (break, AbortSignal) cancels exactly that request on the server.
 */
import { Metadata, makeClientConstructor, type Client, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import type { ModelInferRequestMsg, ModelInferResponseMsg, ModelRepositoryParameterMsg, ModelStreamInferResponseMsg } from '../../protocol/grpc/index.js';
import { ClientError } from '../client-error.js';
import { routingHeaders, type RoutingHeaderOption } from '../routing-key.js';
import type {
  InferenceClient, InferOptions, InferResult, LoadModelOptions, ModelConfig, ModelIndexEntry, ModelMetadata,
  ModelStatistics, ServerMetadata, Tensor, TlsClientOptions,
} from '../types.js';
import { channelCredentials } from './channel-credentials.js';
import { decodeGrpcInfer } from './decode-grpc-infer.js';
import { encodeGrpcInfer } from './encode-grpc-infer.js';
import { grpcSharedMemory } from './grpc-shared-memory.js';
import { inferenceServiceDefinition } from './load-client-protos.js';

export interface GrpcClientOptions {
  /** `host:port`; a `grpc://` prefix is accepted, `grpcs://` means TLS (trusting the system's roots unless `tls.ca`). */
  address: string;
  /** Connect over TLS: the CA to trust, and a client certificate and key for servers that require one. */
  tls?: TlsClientOptions;
  /** Largest message either way; default 2 GiB - 1, as the server's (tensors travel in one message). */
  maxMessageBytes?: number;
  /**
   * The metadata key that carries a sequence's id (or `routingKey`) to a load balancer that hashes
   * on it (default `tributary-sequence-id`; false sends none). docs/deploy.md, "Sequences behind a load balancer".
   */
  routingHeader?: RoutingHeaderOption;
}

export type GrpcClient = InferenceClient;

type Callback = (err: ServiceError | null, res: unknown) => void;
type UnaryMethod = (req: unknown, metadata: Metadata, cb: Callback) => { cancel(): void };
type StreamCall = ClientDuplexStream<ModelInferRequestMsg, ModelStreamInferResponseMsg>;

const MAX_MESSAGE = 2 ** 31 - 1;

function clientError(e: unknown, what: string): unknown {
  const se = e as Partial<ServiceError>;
  if (typeof se?.code === 'number') return new ClientError(se.details || se.message || what, { code: se.code, cause: e });
  return e;
}

export function createGrpcClient(options: GrpcClientOptions): GrpcClient {
  const Ctor = makeClientConstructor(inferenceServiceDefinition(), 'inference.GRPCInferenceService');
  const max = options.maxMessageBytes ?? MAX_MESSAGE;
  const channel = channelCredentials(options.address, options.tls);
  const client = new Ctor(channel.target, channel.credentials, {
    'grpc.max_receive_message_length': max,
    'grpc.max_send_message_length': max,
  }) as Client & Record<string, unknown>;

  const metadata = (opts: InferOptions): Metadata => {
    const md = new Metadata();
    for (const [k, v] of Object.entries(routingHeaders(options.routingHeader, opts) ?? {})) md.set(k, v);
    return md;
  };

  const unary = <T>(method: string, req: unknown, signal?: AbortSignal, md = new Metadata()): Promise<T> => new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => call.cancel();
    const call = (client[method] as UnaryMethod).call(client, req, md, (err, res) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) reject(signal.reason);
      else if (err) reject(clientError(err, method));
      else resolve(res as T);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });

  const repoParams = (p: Record<string, ModelRepositoryParameterMsg>) => p;

  return {
    ...grpcSharedMemory((method, req) => unary(method, req)),
    isServerLive: async () => (await unary<{ live: boolean }>('ServerLive', {})).live,
    isServerReady: async () => (await unary<{ ready: boolean }>('ServerReady', {})).ready,
    serverMetadata: () => unary<ServerMetadata>('ServerMetadata', {}),
    isModelReady: async (name, version = '') => (await unary<{ ready: boolean }>('ModelReady', { name, version })).ready,
    modelMetadata: (name, version = '') => unary<ModelMetadata>('ModelMetadata', { name, version }),
    modelConfig: async (name, version = '') => (await unary<{ config: ModelConfig }>('ModelConfig', { name, version })).config,
    modelStatistics: (name = '', version = '') => unary<{ model_stats: ModelStatistics[] }>('ModelStatistics', { name, version }),
    repositoryIndex: async (opts = {}) =>
      (await unary<{ models: ModelIndexEntry[] }>('RepositoryIndex', { repository_name: '', ready: opts.ready ?? false })).models,

    async loadModel(name: string, opts: LoadModelOptions = {}) {
      const parameters = repoParams({});
      if (opts.config !== undefined) parameters.config = { string_param: typeof opts.config === 'string' ? opts.config : JSON.stringify(opts.config) };
      for (const [path, bytes] of Object.entries(opts.files ?? {})) parameters[`file:${path}`] = { bytes_param: bytes };
      await unary('RepositoryModelLoad', { repository_name: '', model_name: name, parameters });
    },
    async unloadModel(name, opts = {}) {
      const parameters = repoParams(opts.unloadDependents ? { unload_dependents: { bool_param: true } } : {});
      await unary('RepositoryModelUnload', { repository_name: '', model_name: name, parameters });
    },

    async infer(model: string, inputs: readonly Tensor[], opts: InferOptions = {}): Promise<InferResult> {
      return decodeGrpcInfer(await unary<ModelInferResponseMsg>('ModelInfer', encodeGrpcInfer(model, inputs, opts), opts.signal, metadata(opts)));
    },

    async *stream(model: string, inputs: readonly Tensor[], opts: InferOptions = {}): AsyncGenerator<InferResult> {
      const signal = opts.signal;
      signal?.throwIfAborted();
      const call = (client.ModelStreamInfer as (md: Metadata) => StreamCall).call(client, metadata(opts));
      let ended = false;
      call.on('end', () => { ended = true; });
      call.on('error', () => {}); // the loop sees errors; this only keeps our own cancel() from going unhandled
      const onAbort = () => call.cancel();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        call.write(encodeGrpcInfer(model, inputs, opts));
        call.end(); // half-close: the server ends the call once this request's last response is out
        for await (const m of call as AsyncIterable<ModelStreamInferResponseMsg>) {
          if (m.error_message) throw new ClientError(m.error_message);
          if (m.infer_response) yield decodeGrpcInfer(m.infer_response);
        }
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        throw clientError(e, 'ModelStreamInfer');
      } finally {
        signal?.removeEventListener('abort', onAbort);
        if (!ended) call.cancel();
      }
    },

    async close() {
      client.close();
    },
  };
}
