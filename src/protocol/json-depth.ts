/**
 * The nesting depth of JSON request text, bounded before it is parsed. V8's JSON.parse itself does
 * not recurse, but what follows does (`data` flattening, JSON.stringify in messages: a RangeError,
 * so a 500), and 64 MB of `[[[[...` costs about 10 s of main-thread CPU to parse (measured: 10 M
 * levels in 3.4 s) where a refusal at the first levels costs nothing.
 *
 * Cost: any text with at most MAX_JSON_DEPTH brackets cannot nest deeper, and counting brackets is
 * a few native byte searches (a 16-element infer request: 0.1-0.3 µs, about a tenth of its
 * JSON.parse and ~0.1% of the request over HTTP; a flat 48 MB `data` array: ~1% of its
 * JSON.parse). Only text with more brackets than that (nested `data` with many rows, many inputs)
 * is scanned in full, string-aware.
 */
import { Errors } from '../errors.js';

/**
 * Triton's limit (HTTP_MAX_JSON_NESTING_DEPTH in its server's common.h), so a body Triton takes is
 * taken here too: a v2 request nests 3 levels (request, `inputs`, input) around `data`, which
 * nests once per dimension at most (REQUEST_LIMITS.maxRank, 64).
 */
export const MAX_JSON_DEPTH = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** Below this many bytes a plain loop counts faster than a native search per bracket (a call each). */
const LOOP_MAX_BYTES = 4096;

/** More than `max` of `[` and `{` in `text` (strings included, so this over-counts safely). */
function moreBracketsThan(text: Buffer, max: number): boolean {
  let n = 0;
  if (text.length <= LOOP_MAX_BYTES) {
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if ((c === OPEN_ARRAY || c === OPEN_OBJECT) && ++n > max) return true;
    }
    return false;
  }
  for (let i = text.indexOf(OPEN_ARRAY); i !== -1; i = text.indexOf(OPEN_ARRAY, i + 1)) if (++n > max) return true;
  for (let i = text.indexOf(OPEN_OBJECT); i !== -1; i = text.indexOf(OPEN_OBJECT, i + 1)) if (++n > max) return true;
  return false;
}

/**
 * The exact test: depth counted outside strings. Bytes of multi-byte UTF-8 characters are all
 * >= 0x80, so the ASCII bytes compared here are always the characters themselves.
 *
 * Four bytes are tested at once where they can be: brackets and the backslash have bit 0x40 set
 * and digits, signs, dots, commas and spaces do not, so a word without that bit and without a
 * quote byte holds nothing to count. Numeric `data` is mostly such words; it made the scan of a
 * 6 MB nested-rows request 2-3x faster (to ~10% of its JSON.parse).
 */
function nestsDeeper(text: Buffer, max: number): boolean {
  const end = text.length;
  const lead = (4 - (text.byteOffset & 3)) & 3; // bytes before the first 4-byte-aligned one
  const count = end > lead ? (end - lead) >>> 2 : 0;
  const words = new Uint32Array(text.buffer, count ? text.byteOffset + lead : 0, count);
  const wordsEnd = count ? lead + count * 4 : 0;
  let depth = 0;
  let i = 0;
  /** Bytes from `i` to `stop` one by one (a string runs on to its closing quote); true when too deep. */
  const tooDeep = (stop: number): boolean => {
    for (; i < stop; i++) {
      const c = text[i];
      if (c === QUOTE) {
        for (i++; i < end; i++) {
          const d = text[i];
          if (d === BACKSLASH) i++;
          else if (d === QUOTE) break;
        }
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        if (++depth > max) return true;
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        depth--;
      }
    }
    return false;
  };
  if (tooDeep(Math.min(lead, end))) return true;
  while (i < wordsEnd) {
    const misaligned = (i - lead) & 3; // a string ended inside a word
    if (misaligned) {
      if (tooDeep(Math.min(wordsEnd, i + 4 - misaligned))) return true;
      continue;
    }
    const w = words[(i - lead) >>> 2]!;
    const q = w ^ 0x22222222; // a zero byte where the word has a quote
    if ((w & 0x40404040) === 0 && ((q - 0x01010101) & ~q & 0x80808080) === 0) {
      i += 4;
      continue;
    }
    if (tooDeep(i + 4)) return true;
  }
  return tooDeep(end);
}

/** True when the JSON text nests arrays and objects more than `max` levels deep. */
export function jsonNestsDeeper(text: Buffer, max = MAX_JSON_DEPTH): boolean {
  if (text.length <= max) return false;
  return moreBracketsThan(text, max) && nestsDeeper(text, max);
}

/** Refuse JSON text (`what` names it in the message) that nests deeper than MAX_JSON_DEPTH. */
export function checkJsonDepth(text: Buffer, what: string): void {
  if (jsonNestsDeeper(text)) throw Errors.requestJsonTooDeep(what, MAX_JSON_DEPTH);
}
