/**
 * JSON text from a request, parsed with an error that says what failed; text nesting deeper than
 * the protocol's bound is refused before it is parsed (src/protocol/json-depth.ts). Integers past
 * 2^53 come back as bigints, exact (src/protocol/exact-json.ts).
 */
import { Errors } from '../errors.js';
import { MAX_JSON_DEPTH, checkJsonDepth, parseJsonExact } from '../protocol/index.js';

function parse(text: string, what: string, bytes?: Buffer): unknown {
  try {
    return parseJsonExact(text, bytes);
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
  return parse(bytes.toString('utf8'), what, bytes);
}

/**
 * An inference body's JSON bytes, depth-checked, parsed and decoded. parseJsonExact's search for
 * integers past 2^53 costs 50-130% of JSON.parse on a 100k-element `data` array, so the body is
 * parsed by JSON.parse and decoded with `lossy` set; a decoder that meets such an integer where it
 * must be exact (INT64/UINT64 data, parameters) throws requestJsonInexact. That, or any other
 * refusal, decodes the exactly parsed text again: its result stands, and an error then prints every
 * digit the client sent (a shape of 2^60+1 is not reported as 2^60). Decoding has no side effect
 * (shared memory is only read), so running it twice on the error path only costs time.
 */
export function decodeBoundedJsonBytes<T>(bytes: Buffer, what: string, decode: (json: unknown, lossy: boolean) => T): T {
  checkJsonDepth(bytes, what);
  const text = bytes.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw Errors.requestJsonInvalid(what, (e as Error).message);
  }
  try {
    return decode(json, true);
  } catch {
    // Decided below, on the exact parse.
  }
  return decode(parse(text, what, bytes), false);
}
