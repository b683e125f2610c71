import { Errors } from '../../errors.js';
import type { Int64 } from './messages.js';

/**
 * A protobuf wire-format reader over one received buffer: varints, length-delimited fields as
 * views (no copy), and skipping of unknown fields. Every read is bounded by `end` (the enclosing
 * message's), so a length that runs past its parent is refused rather than read.
 */
export class ProtoReader {
  pos: number;
  constructor(readonly buf: Buffer, start: number, public end: number, private readonly message: string) { this.pos = start; }

  fail(what: string): never {
    throw Errors.grpcMalformed(this.message, what, this.pos);
  }

  /** A varint as an unsigned number; exact up to 2^53 (lengths, tags). */
  uint(): number {
    const b = this.buf;
    let x = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const c = b[this.pos++]!;
      x += (c & 127) * mul;
      if (c < 128) return x;
      mul *= 128;
    }
    return this.fail('varint longer than 10 bytes');
  }

  /** A varint's low 32 bits (int32, uint32 and bool fields). */
  low32(): number {
    const b = this.buf;
    let x = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const c = b[this.pos++]!;
      if (i < 5) x |= (c & 127) << (7 * i);
      if (c < 128) return x;
    }
    return this.fail('varint longer than 10 bytes');
  }

  /** An int64 (signed) or uint64 varint: a number when exact, else a decimal string. */
  int64(signed: boolean): Int64 {
    const start = this.pos;
    const b = this.buf;
    // Fast path: up to 7 bytes (49 bits) is exact as a double and cannot be negative.
    let x = 0;
    let mul = 1;
    for (let i = 0; i < 7 && this.pos < this.end; i++) {
      const c = b[this.pos++]!;
      x += (c & 127) * mul;
      if (c < 128) return x;
      mul *= 128;
    }
    this.pos = start;
    let v = 0n;
    let shift = 0n;
    for (let i = 0; ; i++) {
      if (i >= 10) this.fail('varint longer than 10 bytes');
      if (this.pos >= this.end) this.fail('truncated varint');
      const c = b[this.pos++]!;
      v |= BigInt(c & 127) << shift;
      if (c < 128) break;
      shift += 7n;
    }
    const n = signed ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v);
    const num = Number(n);
    return Number.isSafeInteger(num) ? num : n.toString();
  }

  /** The end offset of a length-delimited field starting here. */
  sub(): number {
    const len = this.uint();
    const e = this.pos + len;
    if (e > this.end) this.fail(`length ${len} past the end of the message`);
    return e;
  }

  string(): string {
    const e = this.sub();
    const s = this.buf.toString('utf8', this.pos, e);
    this.pos = e;
    return s;
  }

  bytes(): Buffer {
    const e = this.sub();
    const v = this.buf.subarray(this.pos, e);
    this.pos = e;
    return v;
  }

  /** A fixed-width little-endian value (`width` 4: float, 8: double). */
  fixed(width: 4 | 8): number {
    if (this.pos + width > this.end) this.fail('truncated fixed-width value');
    const v = width === 4 ? this.buf.readFloatLE(this.pos) : this.buf.readDoubleLE(this.pos);
    this.pos += width;
    return v;
  }

  skip(wire: number): void {
    switch (wire) {
      case 0: this.uint(); return;
      case 1: this.pos += 8; break;
      case 2: this.pos = this.sub(); return;
      case 5: this.pos += 4; break;
      default: this.fail(`unsupported wire type ${wire}`);
    }
    if (this.pos > this.end) this.fail('truncated fixed-width field');
  }

  /** Parse a length-delimited sub-message with reads bounded by its own length. */
  nested<T>(parse: (end: number) => T): T {
    const end = this.sub();
    const saved = this.end;
    this.end = end;
    const v = parse(end);
    this.end = saved;
    return v;
  }
}
