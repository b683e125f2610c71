import type { ModelControl, ModelControlLoad } from '../../src/backend/index.js';
import { Errors } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { CONTROL_LOAD, CONTROL_READY, type WireResponse } from './bls/wire.js';

/**
 * The host's side of a script's model control (bls/model-control.ts): loadModel, unloadModel and
 * isModelReady run the server's own repository calls (ModelControl), so the control mode, name
 * confinement and upload limits are the load API's. What is checked here is what only a script
 * can get wrong: calling from where a model must not change, and waiting on itself.
 */

/** A config is a few KiB; this bounds the text a script can hand the repository's parser. */
export const MAX_CONFIG_CHARS = 1 << 20;

/** The call a control operation was made from: which entry, and the models waiting on it. */
export interface ControlCaller {
  what: string;
  /** Every model on the call chains of the call's requests (pipelines, BLS callers). */
  callers: readonly string[];
}

const FN = ['loadModel', 'unloadModel', 'isModelReady'];

/** `options.files` by path, Triton's "file:" prefix taken off, each a Uint8Array. */
function loadOverride(name: string, arg: unknown): ModelControlLoad {
  const out: ModelControlLoad = {};
  if (arg === undefined || arg === null) return out;
  const { config, files } = arg as { config?: unknown; files?: unknown };
  if (config !== undefined) {
    if (typeof config !== 'string') throw Errors.loadParameterInvalid(name, "the 'config' option must be JSON text or an object");
    if (config.length > MAX_CONFIG_CHARS) {
      throw Errors.loadParameterInvalid(name, `the 'config' option has ${config.length} characters, more than ${MAX_CONFIG_CHARS}; a model configuration is a few KiB`);
    }
    out.config = config;
  }
  if (files !== undefined && files !== null) {
    if (typeof files !== 'object') throw Errors.loadParameterInvalid(name, "the 'files' option must be an object of relative path to Uint8Array");
    const byPath = Object.create(null) as Record<string, Uint8Array>;
    for (const [key, bytes] of Object.entries(files)) {
      const path = key.startsWith('file:') ? key.slice(5) : key;
      if (!(bytes instanceof Uint8Array)) throw Errors.loadParameterInvalid(name, `file ${JSON.stringify(key.slice(0, 300))} must be a Uint8Array`);
      if (path in byPath) throw Errors.loadParameterInvalid(name, `file '${path.slice(0, 300)}' is given twice (with and without 'file:')`);
      byPath[path] = bytes;
    }
    out.files = byPath;
  }
  return out;
}

/**
 * Run one operation for `model`'s script. A ready answer comes back as a response whose
 * parameters say `ready`; load and unload as a bare completion (null).
 */
export async function runModelControl(
  control: ModelControl | undefined, model: string, caller: ControlCaller | undefined, log: Logger,
  op: number, name: unknown, arg: unknown,
): Promise<WireResponse | null> {
  const fn = FN[op] ?? 'model control';
  const refuse = (msg: string) => Errors.scriptModelControlRefused(model, `${fn}(${typeof name === 'string' ? `'${name.slice(0, 300)}'` : ''}): ${msg}`);
  if (!control) throw refuse('model control is not available here (a server gives it to its scripts; this host has none)');
  if (typeof name !== 'string' || name === '') throw refuse('a model name is needed');
  if (op === CONTROL_READY) {
    const version = typeof arg === 'string' && arg !== '' ? arg : undefined;
    return { outputs: [], parameters: { ready: await control.ready(name, version) } };
  }
  if (!caller) throw refuse('called after the call that made it had finished; await it inside initialize() or execute()');
  // Triton's Python backend offers model loading in initialize and execute only.
  if (caller.what !== 'initialize()' && caller.what !== 'execute()') throw refuse(`not available in ${caller.what}; call it from initialize() or execute()`);
  if (op === CONTROL_LOAD) {
    // A reload waits for the old version's requests to end, and a first load of the caller's own
    // model waits for the load it is part of: the call would wait for itself.
    if (name === model || caller.callers.includes(name)) {
      throw refuse(`'${name}' is ${name === model ? 'this model' : 'a model waiting on this call'}; its load would wait for this call to end, and this call for the load. Load it from outside (the load API), or from another model`);
    }
    await control.load(name, loadOverride(name, arg));
    return null;
  }
  const unloadDependents = (arg as { unloadDependents?: unknown } | null)?.unloadDependents === true;
  const unload = control.unload(name, { unloadDependents });
  // Triton's unload returns once the unload has begun, without waiting for the model's requests
  // in flight: so a script may unload itself, or a pipeline waiting on it. What the unload
  // refuses (an unknown model, the control mode) it refuses before its first wait, which is
  // before the next turn of the event loop; a failure after that goes to the log.
  const refusedAtOnce = await Promise.race([
    unload.then(() => undefined, (e: unknown) => e),
    new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined))),
  ]);
  if (refusedAtOnce !== undefined) throw refusedAtOnce;
  unload.catch((e: unknown) => log.error(`model '${model}': unloadModel('${name}') failed: ${(e as Error).message}`));
  return null;
}
