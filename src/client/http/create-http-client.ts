/**
 * The HTTP/REST client: KServe v2 with Triton's extensions. Binary tensors by default (the JSON
 * path costs ~60 ns per byte on these machines), one keep-alive agent, SSE for streams.
 */
import type { IncomingMessage } from 'node:http';
import { ClientError } from '../client-error.js';
import { routingHeaders, type RoutingHeaderOption } from '../routing-key.js';
import type {
  InferenceClient, InferOptions, InferResult, LoadModelOptions, ModelConfig, ModelIndexEntry, ModelMetadata,
  ModelStatistics, ServerMetadata, Tensor, TlsClientOptions,
} from '../types.js';
import { decodeHttpInfer, parseResponseJson, resultFromJson } from './decode-http-infer.js';
import { encodeHttpInfer, type EncodedBody } from './encode-http-infer.js';
import { createHttpTransport } from './http-transport.js';
import { httpSharedMemory } from './http-shared-memory.js';
import { readSse } from './read-sse.js';

export interface HttpClientOptions {
  /** `http://host:port`, `https://host:port` (or `host:port`), optionally with a path prefix. */
  url: string;
  /** Send inputs and ask for outputs as binary tensors (default true); false speaks plain JSON. */
  binary?: boolean;
  /** Compress request bodies and accept compressed responses. */
  compression?: 'gzip' | 'deflate';
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /**
   * HTTPS: the CA to trust (the system's roots when absent), and a client certificate and key for
   * servers that require one (--http-use-ssl-mutual). A URL without a scheme is then https.
   */
  tls?: TlsClientOptions;
  /**
   * The header that carries a sequence's id (or `routingKey`) to a load balancer that hashes on it
   * (default `tributary-sequence-id`; false sends none). docs/deploy.md, "Sequences behind a load balancer".
   */
  routingHeader?: RoutingHeaderOption;
}

export interface HttpClient extends InferenceClient {
  /** The generate extension: one flattened JSON response (`text_input` -> `text_output`, ...). */
  generate(model: string, body: Record<string, unknown>, options?: { version?: string; signal?: AbortSignal }): Promise<Record<string, unknown>>;
  /** `/generate_stream`: one JSON object per response; cancellable like `stream`. */
  generateStream(model: string, body: Record<string, unknown>, options?: { version?: string; signal?: AbortSignal }): AsyncIterable<Record<string, unknown>>;
}

const enc = encodeURIComponent;
const modelPath = (name: string, version?: string) => `/v2/models/${enc(name)}${version ? `/versions/${enc(version)}` : ''}`;
const jsonBody = (v: unknown): EncodedBody => {
  const text = JSON.stringify(v);
  return { chunks: [text], byteLength: Buffer.byteLength(text) };
};

/** Events of an SSE response, JSON-parsed; an `{"error"}` event throws; the abort reason wins. */
async function* sseObjects<T extends { error?: unknown }>(
  res: IncomingMessage, signal: AbortSignal | undefined, parse: (text: string) => T,
): AsyncGenerator<T> {
  try {
    for await (const ev of readSse(res)) {
      if (ev.event === 'end') continue; // the body ends right after it; reading on keeps the socket reusable
      const obj = parse(ev.data);
      if (typeof obj.error === 'string') throw new ClientError(obj.error);
      yield obj;
    }
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    throw e;
  } finally {
    if (!res.complete) res.destroy();
  }
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const http = createHttpTransport(options);
  const binary = options.binary ?? true;
  const get = async <T>(path: string): Promise<T> => JSON.parse((await http.request('GET', path)).body.toString('utf8')) as T;
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await http.request('POST', path, jsonBody(body));
    return (res.body.byteLength ? JSON.parse(res.body.toString('utf8')) : undefined) as T;
  };
  const ok = async (path: string): Promise<boolean> => {
    try {
      return (await http.request('GET', path)).status === 200;
    } catch (e) {
      if (e instanceof ClientError && e.status !== undefined && e.status < 500) return false;
      throw e;
    }
  };

  return {
    ...httpSharedMemory(get, post),
    isServerLive: () => ok('/v2/health/live'),
    isServerReady: () => ok('/v2/health/ready'),
    serverMetadata: () => get<ServerMetadata>('/v2'),
    isModelReady: (name, version) => ok(`${modelPath(name, version)}/ready`),
    modelMetadata: (name, version) => get<ModelMetadata>(modelPath(name, version)),
    modelConfig: (name, version) => get<ModelConfig>(`${modelPath(name, version)}/config`),
    modelStatistics: (name, version) => get<{ model_stats: ModelStatistics[] }>(name ? `${modelPath(name, version)}/stats` : '/v2/models/stats'),
    repositoryIndex: (opts = {}) => post<ModelIndexEntry[]>('/v2/repository/index', opts.ready === undefined ? {} : { ready: opts.ready }),

    async loadModel(name: string, opts: LoadModelOptions = {}) {
      const parameters: Record<string, string> = {};
      if (opts.config !== undefined) parameters.config = typeof opts.config === 'string' ? opts.config : JSON.stringify(opts.config);
      for (const [path, bytes] of Object.entries(opts.files ?? {})) parameters[`file:${path}`] = Buffer.from(bytes).toString('base64');
      await post(`/v2/repository/models/${enc(name)}/load`, Object.keys(parameters).length ? { parameters } : {});
    },
    async unloadModel(name, opts = {}) {
      await post(`/v2/repository/models/${enc(name)}/unload`, opts.unloadDependents ? { parameters: { unload_dependents: true } } : {});
    },

    async infer(model: string, inputs: readonly Tensor[], opts: InferOptions = {}): Promise<InferResult> {
      const res = await http.request('POST', `${modelPath(model, opts.version)}/infer`, encodeHttpInfer(inputs, opts, binary),
        routingHeaders(options.routingHeader, opts), opts.signal);
      const h = res.headers['inference-header-content-length'];
      return decodeHttpInfer(res.body, h === undefined ? undefined : Number(h));
    },

    async *stream(model: string, inputs: readonly Tensor[], opts: InferOptions = {}): AsyncGenerator<InferResult> {
      // Events carry JSON only; the request itself may still be binary.
      const res = await http.open('POST', `${modelPath(model, opts.version)}/infer`, encodeHttpInfer(inputs, opts, binary),
        { accept: 'text/event-stream', ...routingHeaders(options.routingHeader, opts) }, opts.signal);
      for await (const obj of sseObjects(res, opts.signal, parseResponseJson)) yield resultFromJson(obj);
    },

    async generate(model, body, opts = {}) {
      const res = await http.request('POST', `${modelPath(model, opts.version)}/generate`, jsonBody(body), undefined, opts.signal);
      return JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
    },
    async *generateStream(model, body, opts = {}) {
      const res = await http.open('POST', `${modelPath(model, opts.version)}/generate_stream`, jsonBody(body),
        { accept: 'text/event-stream' }, opts.signal);
      // Parsed as generate() parses its one response.
      yield* sseObjects(res, opts.signal, (text) => JSON.parse(text) as Record<string, unknown>);
    },

    async close() {
      http.close();
    },
  };
}
