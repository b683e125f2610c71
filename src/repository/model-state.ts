/**
 * The repository's own vocabulary: model states, index entries and load options. They live here
 * (not in server/) so repository/ never imports the layer above it; server/types.ts re-exports them.
 */
export type ModelState = 'UNAVAILABLE' | 'LOADING' | 'READY' | 'UNLOADING';

export interface ModelIndexEntry { name: string; version: string; state: ModelState; reason: string }

export interface LoadOptions {
  /** JSON text of a ModelConfig that replaces the model's config file (Triton's `config` parameter). */
  config?: string;
  /** Files by path relative to the model directory (Triton's `file:<path>` parameters). */
  files?: Record<string, Uint8Array>;
}
