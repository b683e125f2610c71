/**
 * zlib (RFC 1950) / DEFLATE (RFC 1951) decompression in plain TypeScript, for PNG decoding inside
 * the BLS sandbox, where Node's zlib does not exist (pngjs needs it, so it cannot run there).
 * Canonical Huffman codes are decoded with per-length counts and a symbol table (the approach
 * of zlib's puff.c): short and easy to check, fast enough for images of a few megapixels.
 */

interface Huffman { counts: Uint16Array; symbols: Uint16Array }

// Index bounds below: code lengths are at most 15 (3-bit and 4-bit fields, or a symbol < 16), every
// table index is range-checked before its lookup, and a canonical decode never indexes past the
// symbols counted for its length.

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

function huffman(lengths: ArrayLike<number>): Huffman {
  const counts = new Uint16Array(16);
  for (let i = 0; i < lengths.length; i++) counts[lengths[i]!]!++;
  counts[0] = 0;
  const offsets = new Uint16Array(16);
  for (let len = 1; len < 15; len++) offsets[len + 1] = offsets[len]! + counts[len]!;
  const symbols = new Uint16Array(lengths.length);
  for (let s = 0; s < lengths.length; s++) {
    const len = lengths[s]!;
    if (len) symbols[offsets[len]!++] = s;
  }
  return { counts, symbols };
}

const FIXED_LIT = huffman(Array.from({ length: 288 }, (_, i) => (i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8)));
const FIXED_DIST = huffman(new Array(30).fill(5));

class Output {
  buf: Uint8Array;
  len = 0;
  constructor(size: number) { this.buf = new Uint8Array(Math.max(size, 1024)); }
  ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + extra));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
}

class Bits {
  pos = 0;
  private bitBuf = 0;
  private bitCnt = 0;
  constructor(private readonly data: Uint8Array) {}
  need(n: number): number {
    let val = this.bitBuf;
    while (this.bitCnt < n) {
      if (this.pos >= this.data.length) throw new Error('deflate stream ends early');
      val |= this.data[this.pos++]! << this.bitCnt;
      this.bitCnt += 8;
    }
    this.bitBuf = val >>> n;
    this.bitCnt -= n;
    return val & ((1 << n) - 1);
  }
  align(): void { this.bitBuf = 0; this.bitCnt = 0; }
  decode(h: Huffman): number {
    let code = 0, first = 0, index = 0;
    for (let len = 1; len < 16; len++) {
      code |= this.need(1);
      const count = h.counts[len]!;
      if (code - count < first) return h.symbols[index + (code - first)]!;
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    throw new Error('invalid Huffman code in deflate stream');
  }
  bytes(n: number): Uint8Array {
    if (this.pos + n > this.data.length) throw new Error('deflate stored block ends early');
    const out = this.data.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

function codes(bits: Bits, out: Output, lit: Huffman, dist: Huffman): void {
  for (;;) {
    let sym = bits.decode(lit);
    if (sym < 256) { out.ensure(1); out.buf[out.len++] = sym; continue; }
    if (sym === 256) return;
    sym -= 257;
    if (sym >= 29) throw new Error('invalid length code in deflate stream');
    const len = LENGTH_BASE[sym]! + bits.need(LENGTH_EXTRA[sym]!);
    const dsym = bits.decode(dist);
    if (dsym >= 30) throw new Error('invalid distance code in deflate stream');
    const d = DIST_BASE[dsym]! + bits.need(DIST_EXTRA[dsym]!);
    if (d > out.len) throw new Error('deflate distance reaches before the start of the output');
    out.ensure(len);
    const b = out.buf;
    for (let i = 0; i < len; i++, out.len++) b[out.len] = b[out.len - d]!;
  }
}

function dynamicTables(bits: Bits): [Huffman, Huffman] {
  const nlen = bits.need(5) + 257, ndist = bits.need(5) + 1, ncode = bits.need(4) + 4;
  const clen = new Uint8Array(19);
  for (let i = 0; i < ncode; i++) clen[CLEN_ORDER[i]!] = bits.need(3);
  const lencode = huffman(clen);
  const lengths = new Uint8Array(nlen + ndist);
  for (let i = 0; i < nlen + ndist;) {
    const sym = bits.decode(lencode);
    if (sym < 16) { lengths[i++] = sym; continue; }
    let rep = 0, val = 0;
    if (sym === 16) {
      if (i === 0) throw new Error('deflate repeat with no previous length');
      val = lengths[i - 1]!; rep = 3 + bits.need(2);
    } else rep = sym === 17 ? 3 + bits.need(3) : 11 + bits.need(7);
    if (i + rep > nlen + ndist) throw new Error('too many code lengths in deflate header');
    lengths.fill(val, i, i + rep);
    i += rep;
  }
  return [huffman(lengths.subarray(0, nlen)), huffman(lengths.subarray(nlen))];
}

/** Inflates raw DEFLATE data; `sizeHint` presizes the output (e.g. a PNG's known raw size). */
export function inflateRaw(data: Uint8Array, sizeHint = data.length * 4): Uint8Array {
  const bits = new Bits(data);
  const out = new Output(sizeHint);
  let last = 0;
  while (!last) {
    last = bits.need(1);
    const type = bits.need(2);
    if (type === 0) {
      bits.align();
      const header = bits.bytes(4);
      const len = header[0]! | (header[1]! << 8);
      if ((len ^ 0xffff) !== (header[2]! | (header[3]! << 8))) throw new Error('deflate stored block length check failed');
      out.ensure(len);
      out.buf.set(bits.bytes(len), out.len);
      out.len += len;
    } else if (type === 1) codes(bits, out, FIXED_LIT, FIXED_DIST);
    else if (type === 2) codes(bits, out, ...dynamicTables(bits));
    else throw new Error('invalid deflate block type 3');
  }
  return out.buf.subarray(0, out.len);
}

/** Inflates a zlib stream (2-byte header, DEFLATE data, Adler-32 not re-checked: PNG has CRCs). */
export function inflateZlib(data: Uint8Array, sizeHint?: number): Uint8Array {
  if (data.length < 2 || (data[0]! & 0x0f) !== 8 || ((data[0]! << 8) | data[1]!) % 31 !== 0) {
    throw new Error('not a zlib stream (bad header)');
  }
  if (data[1]! & 0x20) throw new Error('zlib stream needs a preset dictionary (not allowed in PNG)');
  return inflateRaw(data.subarray(2), sizeHint);
}
