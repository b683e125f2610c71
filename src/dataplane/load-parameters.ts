/**
 * Triton's load parameters, from a protocol-neutral map: `config` (the model configuration as
 * JSON text) and `file:<path>` (a file's contents: bytes over gRPC, base64 text in HTTP's JSON).
 * Only their types are checked here; the repository checks the names (src/paths/) and the
 * configuration itself. Other keys are ignored, as Triton does.
 */
import { Errors } from '../errors.js';
import type { LoadOptions } from '../server/index.js';
import { checkJsonTextDepth } from './bounded-json.js';

export type LoadParameterValue = string | number | boolean | Uint8Array | null;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const shownKey = (key: string) => JSON.stringify(key).slice(0, 300);

export function loadOptions(model: string, params: Readonly<Record<string, LoadParameterValue>>): LoadOptions {
  const out: LoadOptions = {};
  for (const [key, v] of Object.entries(params)) {
    if (key === 'config') {
      if (typeof v !== 'string') throw Errors.loadParameterInvalid(model, "the 'config' parameter must be a string of JSON model configuration");
      checkJsonTextDepth(v, `load '${model}' parameter 'config'`);
      let obj: unknown;
      try {
        obj = JSON.parse(v);
      } catch (e) {
        // Triton's words for a config override it cannot parse (a poll failure; 400 here, see load-failure.ts).
        throw Errors.loadRefused(model, `Invalid config override: the 'config' parameter is not valid JSON (${(e as Error).message}); send the model configuration as the parameter 'config' JSON object`);
      }
      if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
        throw Errors.loadRefused(model, "Invalid config override: the 'config' parameter must be a JSON object (a model configuration)");
      }
      out.config = v;
    } else if (key.startsWith('file:')) {
      let bytes: Uint8Array;
      if (v instanceof Uint8Array) bytes = v;
      else if (typeof v === 'string' && BASE64.test(v.replace(/\s/g, ''))) bytes = new Uint8Array(Buffer.from(v, 'base64'));
      else throw Errors.loadParameterInvalid(model, `file parameter ${shownKey(key)} must be bytes (base64 text in JSON)`);
      // No prototype: 'file:__proto__' is a file name like any other.
      (out.files ??= Object.create(null) as Record<string, Uint8Array>)[key.slice(5)] = bytes;
    }
  }
  if (out.files && out.config === undefined) {
    throw Errors.loadParameterInvalid(model, "'file:' parameters need a 'config' parameter too (as in Triton)");
  }
  return out;
}

/** `unload_dependents`: a boolean (Triton's only unload parameter). */
export function unloadDependents(model: string, params: Readonly<Record<string, LoadParameterValue>>): boolean {
  const v = params.unload_dependents;
  if (v !== undefined && v !== null && typeof v !== 'boolean') {
    throw Errors.loadParameterInvalid(model, "parameter 'unload_dependents' must be a boolean");
  }
  return v === true;
}
