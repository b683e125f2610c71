import type { Observable } from 'rxjs';
import type { InferenceRequest, InferenceResponse } from '../backend/index.js';
import type { ModelConfig } from '../config/index.js';
import type { DataType } from '../tensor/index.js';
import type { ModelListener, ModelStatistics } from '../model/statistics.js';

export interface TensorMetadata { name: string; datatype: DataType; shape: number[] }

/** KServe v2 model metadata (variable dims = -1; batch dim included as -1 when max_batch_size > 0). */
export interface ModelMetadata {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
}

export type ModelState = 'UNAVAILABLE' | 'LOADING' | 'READY' | 'UNLOADING';

export interface ModelIndexEntry { name: string; version: string; state: ModelState; reason: string }

export interface ServerMetadata { name: string; version: string; extensions: string[] }

export interface LoadOptions {
  /** JSON text of a ModelConfig that replaces the model's config file (Triton's `config` parameter). */
  config?: string;
  /** Files by path relative to the model directory (Triton's `file:<path>` parameters). */
  files?: Record<string, Uint8Array>;
}

/**
 * The in-process API, Triton's C API equivalent. Front ends only translate to and from it.
 * Methods that look up a model throw TributaryError (NOT_FOUND, UNAVAILABLE) rather than return null.
 */
export interface Server {
  isLive(): boolean;
  isReady(): boolean;
  metadata(): ServerMetadata;
  modelReady(name: string, version?: string): boolean;
  modelMetadata(name: string, version?: string): ModelMetadata;
  modelConfig(name: string, version?: string): ModelConfig;
  /** Triton's statistics: every model (name undefined) or one model (all versions, or one). */
  modelStatistics(name?: string, version?: string): { model_stats: ModelStatistics[] };
  /** One response, or many for a decoupled model; the last has `final`. Unsubscribe cancels. */
  infer(request: InferenceRequest): Observable<InferenceResponse>;
  repositoryIndex(options?: { ready?: boolean }): Promise<ModelIndexEntry[]>;
  loadModel(name: string, options?: LoadOptions): Promise<void>;
  unloadModel(name: string, options?: { unloadDependents?: boolean }): Promise<void>;
  /** Subscribe to per-request records (metrics). Returns an unsubscribe function. */
  addListener(listener: ModelListener): () => void;
  close(): Promise<void>;
}
