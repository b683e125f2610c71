import { children, current, host, nextChildId } from './host-channel.js';
import { ModelError } from './model-error.js';
import { CONTROL_LOAD, CONTROL_READY, CONTROL_UNLOAD, type WireResponse } from './wire.js';

/**
 * Triton's model loading API for Python models (load_model, unload_model, is_model_ready). Each
 * call starts on the host without waiting for it (a fire-and-forget callback) and settles when
 * the host delivers its outcome, as a BLS call does.
 */
export interface LoadModelOptions {
  /** A configuration that replaces the model's config file: JSON text, or an object sent as JSON. */
  config?: string | Readonly<Record<string, unknown>>;
  /** Files of the model directory to load from instead of the repository's, by relative path ("1/model.onnx"; Triton's "file:1/model.onnx" is taken too). Needs `config`. */
  files?: Readonly<Record<string, Uint8Array>>;
}

export interface UnloadModelOptions {
  /** Also unload the models it loaded as pipeline steps that nothing else uses. */
  unloadDependents?: boolean;
}

function control(op: number, name: string, arg: unknown, what: string): Promise<WireResponse | undefined> {
  if (typeof name !== 'string' || name === '') return Promise.reject(new ModelError(`${what} needs a model name`, 'INVALID_ARG'));
  // The rejection arrives from the host later; keep the caller's frames (as InferenceRequest.exec does).
  const origin = new Error();
  return new Promise((resolve, reject) => {
    const id = nextChildId();
    let got: WireResponse | undefined;
    children.set(id, {
      callId: current.callId,
      response: (r) => { got = r; },
      error: (e) => {
        const err = ModelError.fromWire(e);
        err.stack = `${err.name}: ${err.message}\n${(origin.stack ?? '').split('\n').slice(1).join('\n')}`;
        reject(err);
      },
      complete: () => resolve(got),
    });
    host().control(current.callId, id, op, name, arg);
  });
}

/**
 * Load (or reload) a model of the repository, optionally from a configuration and files given
 * here. Only in explicit model control mode; resolves once the model is loaded.
 */
export function loadModel(name: string, options: LoadModelOptions = {}): Promise<void> {
  let arg: { config?: string; files?: Readonly<Record<string, Uint8Array>> } | undefined;
  try {
    const o = options ?? {};
    arg = {};
    if (o.config !== undefined) arg.config = typeof o.config === 'string' ? o.config : JSON.stringify(o.config);
    if (o.files !== undefined) arg.files = o.files;
  } catch (e) {
    return Promise.reject(new ModelError(`loadModel('${name}'): the config cannot be sent as JSON: ${(e as Error).message}`, 'INVALID_ARG', 'TRB_LOAD_PARAMETER_INVALID'));
  }
  return control(CONTROL_LOAD, name, arg, 'loadModel').then(() => undefined);
}

/**
 * Unload a model. Only in explicit model control mode; resolves once the unload has begun (the
 * model takes no new requests), without waiting for its requests in flight, as Triton's does.
 */
export function unloadModel(name: string, options: UnloadModelOptions = {}): Promise<void> {
  return control(CONTROL_UNLOAD, name, { unloadDependents: options?.unloadDependents === true }, 'unloadModel').then(() => undefined);
}

/** Whether a model (a version of it, when given) is loaded and ready, as its ready endpoint answers. */
export function isModelReady(name: string, version?: string): Promise<boolean> {
  return control(CONTROL_READY, name, version === undefined ? null : String(version), 'isModelReady').then((r) => r?.parameters?.ready === true);
}
