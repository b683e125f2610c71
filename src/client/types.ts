/**
 * The client SDK's surface, shared by the HTTP and gRPC clients (modelled on Triton's
 * tritonclient.http / tritonclient.grpc): one interface, two transports.
 */
import type { Parameters } from '../inference/index.js';
import type { ModelConfig } from '../config/index.js';
import type { ModelStatistics } from '../model/index.js';
import type { ModelIndexEntry, ModelMetadata, ServerMetadata } from '../server/index.js';
import type { Tensor } from '../tensor/index.js';
import type { SharedMemoryRef, SystemSharedMemoryClient } from './shared-memory.js';

export type { Parameters, ModelConfig, ModelStatistics, ModelIndexEntry, ModelMetadata, ServerMetadata, Tensor };

export interface RequestedOutputOptions {
  name: string;
  /** HTTP only: return this output as binary data (default: the client's `binary`). */
  binary?: boolean;
  /** Classification extension: return the top N classes as BYTES "value:index[:label]". */
  classification?: number;
  /** Write this output into a registered shared-memory region; the result's tensor then has no data. */
  sharedMemory?: SharedMemoryRef;
}

export interface SequenceOptions {
  /** Correlation ID: an unsigned integer or a string. */
  id: number | bigint | string;
  start?: boolean;
  end?: boolean;
}

export interface InferOptions {
  /** Model version; the server's version policy picks one when absent. */
  version?: string;
  /** Request id, echoed in the response. */
  id?: string;
  /** Outputs to return (and how); every output when absent. */
  outputs?: readonly RequestedOutputOptions[];
  /** Request parameters passed to the model (reserved names are set through the fields below). */
  parameters?: Parameters;
  /** Priority level (1 is the highest; 0 = the model's default). */
  priority?: number;
  /** Queue timeout in microseconds. */
  timeoutUs?: number;
  sequence?: SequenceOptions;
  /**
   * The key a load balancer hashes on to pick a replica (the `tributary-sequence-id` header or
   * metadata). Sequence requests send their sequence id without this; set it to pin other requests
   * that need one replica (for example to reuse its response cache), or to override the id.
   */
  routingKey?: string;
  /** Aborting cancels the request (the connection or call is closed, so the server stops too). */
  signal?: AbortSignal;
  /**
   * Inputs whose bytes are in registered shared-memory regions, by input name: the tensor passed
   * gives the name, datatype and shape, and its data is not sent.
   */
  inputSharedMemory?: Readonly<Record<string, SharedMemoryRef>>;
}

export interface InferResult {
  modelName: string;
  modelVersion: string;
  id: string;
  outputs: Tensor[];
  parameters: Parameters;
  /** The output called `name`; throws naming the outputs the response has. */
  output(name: string): Tensor;
}

/**
 * TLS for a client transport: PEM contents (string or bytes), not file names. An empty object is
 * TLS that trusts the system's root certificates.
 */
export interface TlsClientOptions {
  /** CA certificate(s) that signed the server's certificate; the system's roots when absent. */
  ca?: string | Uint8Array;
  /** Client certificate chain, for servers that require one (mutual TLS); needs `key`. */
  cert?: string | Uint8Array;
  /** The client certificate's private key; needs `cert`. */
  key?: string | Uint8Array;
}

export interface LoadModelOptions {
  /** A model configuration (JSON text or object) replacing the one in the repository. */
  config?: string | object;
  /** Model files by path relative to the model directory (needs `config`). */
  files?: Record<string, Uint8Array>;
}

export interface InferenceClient extends SystemSharedMemoryClient {
  isServerLive(): Promise<boolean>;
  isServerReady(): Promise<boolean>;
  serverMetadata(): Promise<ServerMetadata>;
  isModelReady(name: string, version?: string): Promise<boolean>;
  modelMetadata(name: string, version?: string): Promise<ModelMetadata>;
  /**
   * The model configuration. HTTP returns the JSON form; gRPC returns the `inference.ModelConfig`
   * message (the same field names, with proto defaults filled in and the scheduling oneof chosen).
   */
  modelConfig(name: string, version?: string): Promise<ModelConfig>;
  /** Statistics of every model (no name), one model's versions, or one version. */
  modelStatistics(name?: string, version?: string): Promise<{ model_stats: ModelStatistics[] }>;
  repositoryIndex(options?: { ready?: boolean }): Promise<ModelIndexEntry[]>;
  loadModel(name: string, options?: LoadModelOptions): Promise<void>;
  unloadModel(name: string, options?: { unloadDependents?: boolean }): Promise<void>;
  /** One request, one response (a decoupled model needs `stream`). */
  infer(model: string, inputs: readonly Tensor[], options?: InferOptions): Promise<InferResult>;
  /**
   * Every response of one request, as they arrive (decoupled models and pipelines send many).
   * Breaking out of the loop, or aborting `options.signal`, cancels the request on the server.
   */
  stream(model: string, inputs: readonly Tensor[], options?: InferOptions): AsyncIterable<InferResult>;
  /** Release connections; pending calls fail. */
  close(): Promise<void>;
}
