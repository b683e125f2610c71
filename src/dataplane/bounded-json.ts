/**
 * JSON text from a request, parsed with an error that says what failed; text nesting deeper than
 * the protocol's bound is refused before it is parsed (src/protocol/json-depth.ts).
 */
import { Errors } from '../errors.js';
import { MAX_JSON_DEPTH, checkJsonDepth } from '../protocol/index.js';

function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw Errors.requestJsonInvalid(what, (e as Error).message);
  }
}

/** Refuse JSON text nesting past the bound; only text longer than the bound can, so only that is scanned. */
export function checkJsonTextDepth(text: string, what: string): void {
  if (text.length > MAX_JSON_DEPTH) checkJsonDepth(Buffer.from(text, 'utf8'), what);
}

/** JSON bytes (a body, or the JSON header of a binary body), depth-checked, then parsed. */
export function parseBoundedJsonBytes(bytes: Buffer, what: string): unknown {
  checkJsonDepth(bytes, what);
  return parse(bytes.toString('utf8'), what);
}
