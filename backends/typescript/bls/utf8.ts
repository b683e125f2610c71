/**
 * UTF-8 for the sandbox: a bare V8 isolate has no TextEncoder/TextDecoder (they are web APIs), and
 * tokenizers and `Tensor.strings()` need them. Short ASCII strings take a fast path.
 */
export function utf8Encode(s: string): Uint8Array {
  const n = s.length;
  let ascii = true;
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) > 0x7f) { ascii = false; break; }
  if (ascii) {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  const out = new Uint8Array(n * 3);
  let p = 0;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
      else c = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out[p++] = c;
    else if (c < 0x800) { out[p++] = 0xc0 | (c >> 6); out[p++] = 0x80 | (c & 63); }
    else if (c < 0x10000) { out[p++] = 0xe0 | (c >> 12); out[p++] = 0x80 | ((c >> 6) & 63); out[p++] = 0x80 | (c & 63); }
    else { out[p++] = 0xf0 | (c >> 18); out[p++] = 0x80 | ((c >> 12) & 63); out[p++] = 0x80 | ((c >> 6) & 63); out[p++] = 0x80 | (c & 63); }
  }
  return out.slice(0, p);
}

export function utf8Decode(b: Uint8Array, fatal = false): string {
  let out = '';
  let chunk: number[] = [];
  const n = b.length;
  for (let i = 0; i < n;) {
    const c = b[i]!;
    let cp: number;
    let need = 0;
    if (c < 0x80) { cp = c; }
    else if (c >= 0xc2 && c < 0xe0) { cp = c & 31; need = 1; }
    else if (c >= 0xe0 && c < 0xf0) { cp = c & 15; need = 2; }
    else if (c >= 0xf0 && c < 0xf5) { cp = c & 7; need = 3; }
    else { cp = -1; }
    let j = i + 1;
    for (let k = 0; k < need && cp >= 0; k++, j++) {
      if (j >= n) { cp = -1; break; }
      const d = b[j]!;
      if ((d & 0xc0) !== 0x80) { cp = -1; break; }
      cp = (cp << 6) | (d & 63);
    }
    if (cp >= 0 && ((need === 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (need === 3 && (cp < 0x10000 || cp > 0x10ffff)))) cp = -1;
    if (cp < 0) {
      if (fatal) throw new TypeError(`invalid UTF-8 at byte ${i}`);
      cp = 0xfffd;
      j = i + 1;
    }
    if (cp >= 0x10000) { cp -= 0x10000; chunk.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 1023)); }
    else chunk.push(cp);
    if (chunk.length >= 4096) { out += String.fromCharCode(...chunk); chunk = []; }
    i = j;
  }
  return out + String.fromCharCode(...chunk);
}

/** The WHATWG shapes, UTF-8 only. */
export class SandboxTextEncoder {
  readonly encoding = 'utf-8';
  encode(s = ''): Uint8Array { return utf8Encode(String(s)); }
  encodeInto(s: string, dst: Uint8Array): { read: number; written: number } {
    const b = utf8Encode(s);
    const n = Math.min(b.length, dst.length);
    dst.set(b.subarray(0, n));
    return { read: n === b.length ? s.length : n, written: n };
  }
}

export class SandboxTextDecoder {
  readonly encoding = 'utf-8';
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  constructor(label = 'utf-8', options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    if (!/^utf-?8$/i.test(label)) throw new RangeError(`TextDecoder: only utf-8 is available in the sandbox, got '${label}'`);
    this.fatal = !!options.fatal;
    this.ignoreBOM = !!options.ignoreBOM;
  }
  decode(input?: ArrayBufferView | ArrayBuffer): string {
    if (input === undefined) return '';
    let b = input instanceof Uint8Array ? input
      : ArrayBuffer.isView(input) ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
        : new Uint8Array(input);
    if (!this.ignoreBOM && b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
    return utf8Decode(b, this.fatal);
  }
}
