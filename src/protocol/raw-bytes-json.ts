/**
 * BYTES elements that are not UTF-8, in a JSON response, as Triton's HTTP front end sends them: the
 * element's bytes go into the JSON string as they are (its WriteDataToJson appends them with
 * AppendStringRef, and TritonJson's writer neither validates nor replaces). Clients that read the
 * body as bytes (Triton's C++ client, rapidjson) get the data back exactly; a client that insists
 * on UTF-8 fails loudly instead of reading altered data. Never U+FFFD: a TextDecoder would replace
 * every bad byte with it, silently, which is the one answer that loses data for every client.
 *
 * Responses are built as JS strings, so a byte that is not part of a UTF-8 character travels as a
 * lone surrogate U+DC80-U+DCFF (Python's "surrogateescape"), which no decoded text can hold, and
 * `jsonWireBytes` turns the finished text into the wire bytes with those bytes restored.
 */
import { isUtf8 } from 'node:buffer';

const utf8d = new TextDecoder();
const utf8e = new TextEncoder();

/** Length of the UTF-8 character at `i` (RFC 3629: no overlong form, no surrogate), 0 when invalid. */
function charLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n === 0 || i + n > b.length) return 0;
  for (let k = 1; k < n; k++) if ((b[i + k]! & 0xc0) !== 0x80) return 0;
  const c1 = b[i + 1]!;
  if ((c === 0xe0 && c1 < 0xa0) || (c === 0xf0 && c1 < 0x90)) return 0; // overlong
  if (c === 0xed && c1 > 0x9f) return 0; // a surrogate
  if (c === 0xf4 && c1 > 0x8f) return 0; // past U+10FFFF
  return n;
}

const escaped = (text: string): string => JSON.stringify(text).slice(1, -1);

/**
 * `bytes` as text: each run of UTF-8 characters decoded and passed through `piece`, and each byte
 * that is not part of a UTF-8 character as the lone surrogate U+DC80-U+DCFF standing for it.
 */
function bytesAsText(bytes: Uint8Array, piece: (text: string) => string): string {
  let s = '';
  let from = 0;
  for (let i = 0; i < bytes.length;) {
    const n = charLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    s += piece(utf8d.decode(bytes.subarray(from, i))) + String.fromCharCode(0xdc00 + bytes[i]!);
    from = ++i;
  }
  return s + piece(utf8d.decode(bytes.subarray(from)));
}

/**
 * A BYTES element as a JSON string literal: its UTF-8 text escaped as JSON.stringify does, and each
 * byte that is not part of a UTF-8 character as the lone surrogate standing for it.
 */
export function rawBytesJsonString(bytes: Uint8Array): string {
  return `"${bytesAsText(bytes, escaped)}"`;
}

/**
 * The wire form of JSON text built with `rawBytesJsonString`: the text itself when it holds no raw
 * byte (the common case, told by one native check), else its UTF-8 with every lone surrogate
 * U+DC80-U+DCFF written as the byte it stands for. Text from JSON.stringify never holds a lone
 * surrogate (it escapes them), so only raw bytes are restored.
 */
export function jsonWireBytes(text: string): string | Buffer {
  if (text.isWellFormed()) return text;
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc80 || c > 0xdcff) continue;
    const before = i > 0 ? text.charCodeAt(i - 1) : 0;
    if (before >= 0xd800 && before <= 0xdbff) continue; // the second half of a pair
    parts.push(Buffer.from(text.slice(from, i), 'utf8'), Buffer.of(c - 0xdc00));
    from = i + 1;
  }
  parts.push(Buffer.from(text.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

/**
 * Client side, the inverse: JSON wire bytes as text for JSON.parse, each byte that is not part of a
 * UTF-8 character as the lone surrogate standing for it (a TextDecoder would make it U+FFFD and
 * lose it). Valid UTF-8 (the common case, told by one native check) is decoded as it is.
 */
export function rawBytesJsonText(bytes: Uint8Array): string {
  return isUtf8(bytes) ? utf8d.decode(bytes) : bytesAsText(bytes, (text) => text);
}

/**
 * A BYTES element read from text made by `rawBytesJsonText`: its UTF-8, with every lone surrogate
 * U+DC80-U+DCFF written back as the byte it stands for.
 */
export function rawBytesOf(text: string): Uint8Array {
  const wire = jsonWireBytes(text);
  return typeof wire === 'string' ? utf8e.encode(wire) : new Uint8Array(wire.buffer, wire.byteOffset, wire.byteLength);
}
