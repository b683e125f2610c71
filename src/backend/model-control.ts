/** A load's override (Triton's load parameters): the config as JSON text, files by relative path. */
export interface ModelControlLoad {
  config?: string;
  files?: Record<string, Uint8Array>;
}

/**
 * The repository API as a script reaches it (Triton's Python load_model, unload_model and
 * is_model_ready): the same calls the load API's routes make, so the same control-mode check,
 * name confinement and upload limits apply.
 */
export interface ModelControl {
  load(name: string, options: ModelControlLoad): Promise<void>;
  unload(name: string, options: { unloadDependents?: boolean }): Promise<void>;
  ready(name: string, version?: string): boolean | Promise<boolean>;
}
