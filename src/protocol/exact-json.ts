/**
 * JSON text parsed with 64-bit integers kept exact. JSON.parse turns 2^60+1 into 2^60 (a double),
 * and Node 20's reviver has no access to the source text, so a value past 2^53 is lost before any
 * check could see it. INT64/UINT64 data, sequence IDs and shared-memory sizes are 64-bit on the
 * wire (Triton reads them with AsInt/AsUInt), so such literals become bigints here.
 *
 * Cost: an integer past 2^53 has at least 16 digits, so text without a run of 16 digits (outside a
 * fraction or exponent) is parsed by JSON.parse alone, after one pass counting digits. Measured
 * (Node 20, a loaded 2-core machine): no difference on a 16-element request (~6 us either way);
 * on 100k-element `data` (0.7-2 MB) the byte pass adds 50-130% to JSON.parse, so inference bodies
 * come here only when a decoder met an integer past 2^53 in JSON.parse's result, or refused the
 * body (src/dataplane/bounded-json.ts). A regex for the same runs was worse (it backtracks at every
 * digit). Only text with such a run is scanned string-aware; its big integer literals are swapped
 * for marked strings, parsed, and turned back into bigints. Integers up to 2^53 stay numbers.
 */
import { randomBytes } from 'node:crypto';

/** Marks a swapped literal; a NUL and 16 random bytes no request text can guess. */
const MARK = `\u0000big:${randomBytes(16).toString('hex')}:`;
const MARK_JSON = JSON.stringify(MARK).slice(1, -1);

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An integer literal of more digits than this is past FP64's 1.8e308, so out of range for every
 * datatype: it is left to JSON.parse, which makes it ±Infinity in linear time, and the decoders
 * refuse it as out of range. BigInt() of a million digits took 0.8 s, printing it 3 s.
 */
const MAX_EXACT_DIGITS = 309;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * The text with every integer literal outside strings whose magnitude passes 2^53-1 replaced by a
 * marked string, or undefined when there is none (a run of digits inside a string, or a fraction).
 */
function markBigIntegers(text: string): string | undefined {
  let out: string | undefined;
  let from = 0;
  const end = text.length;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < end; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      continue;
    }
    if (c !== 0x2d && !isDigit(c)) continue;
    const start = i;
    if (c === 0x2d) i++;
    while (i < end && isDigit(text.charCodeAt(i))) i++;
    const next = text.charCodeAt(i);
    const integer = next !== 0x2e && next !== 0x65 && next !== 0x45; // no '.', 'e', 'E'
    if (!integer) {
      while (i < end && /[\d.eE+-]/.test(text[i]!)) i++;
    } else if (i - start >= 16 && i - start - (c === 0x2d ? 1 : 0) <= MAX_EXACT_DIGITS) {
      const literal = text.slice(start, i);
      const v = BigInt(literal);
      if (v > MAX_SAFE || v < -MAX_SAFE) {
        out = (out ?? '') + text.slice(from, start) + `"${MARK_JSON}${literal}"`;
        from = i;
      }
    }
    i--;
  }
  return out === undefined ? undefined : out + text.slice(from);
}

/**
 * A run of 16 digits that is not a fraction or an exponent (strings are sorted out later). Two
 * monomorphic loops: one loop reading either bytes or a string measured 3x slower than these.
 */
function bytesMayHoldBigInteger(bytes: Uint8Array): boolean {
  let run = 0;
  let fraction = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c <= 0x39 && c >= 0x30) {
      if (++run >= 16 && !fraction) return true;
    } else if (run !== 0 || c === 0x2b || c === 0x2d || c === 0x2e || c === 0x65 || c === 0x45) {
      // '.', 'e', 'E' start digits that are no integer; a sign after an exponent keeps it so.
      fraction = c === 0x2e || c === 0x65 || c === 0x45 || ((c === 0x2b || c === 0x2d) && fraction);
      run = 0;
    } else {
      fraction = false;
    }
  }
  return false;
}

function textMayHoldBigInteger(text: string): boolean {
  let run = 0;
  let fraction = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x39 && c >= 0x30) {
      if (++run >= 16 && !fraction) return true;
    } else {
      fraction = c === 0x2e || c === 0x65 || c === 0x45 || ((c === 0x2b || c === 0x2d) && fraction);
      run = 0;
    }
  }
  return false;
}

function revive(_key: string, v: unknown): unknown {
  return typeof v === 'string' && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v;
}

/**
 * JSON.parse, except that integer literals past 2^53-1 in magnitude become bigints (exact).
 * Throws JSON.parse's SyntaxError for text that is not JSON. `bytes`, the text's UTF-8 when the
 * caller has it, is scanned instead of the string (measured 3-4x faster per character).
 */
export function parseJsonExact(text: string, bytes?: Uint8Array): unknown {
  if (!(bytes ? bytesMayHoldBigInteger(bytes) : textMayHoldBigInteger(text))) return JSON.parse(text);
  const marked = markBigIntegers(text);
  return marked === undefined ? JSON.parse(text) : JSON.parse(marked, revive);
}

/** JSON.stringify that prints bigints with every digit (a JSON number), for messages and responses. */
export function stringifyExact(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  let found = false;
  const s = JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x !== 'bigint') return x;
    found = true;
    return `${MARK}${x.toString()}`;
  });
  if (!found) return s;
  return s.replace(new RegExp(`"${MARK_JSON.replace(/\\/g, '\\\\')}(-?\\d+)"`, 'g'), '$1');
}
