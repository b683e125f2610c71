/**
 * A hand-written protobuf decoder for ModelInferRequest, the hot path's incoming message (the
 * lean HTTP/2 front end uses it). It yields the same object shape as @grpc/proto-loader with
 * PROTO_LOADER_OPTIONS (keepCase, defaults, `parameter_choice`), except that int64/uint64 values
 * are numbers when exact and decimal strings otherwise (both are `Int64`), and every `bytes`
 * field (raw_input_contents, bytes_contents) is a Buffer view of the received message: no copy.
 * Accepts packed and unpacked repeated scalars and skips unknown fields, as protobuf requires.
 * Tests decode protobufjs-encoded messages with both decoders and compare.
 */
import { Errors } from '../../errors.js';
import type {
  InferInputTensorMsg, InferParameterMsg, InferRequestedOutputTensorMsg, InferTensorContentsMsg, Int64, ModelInferRequestMsg, ParameterMap,
} from './messages.js';

class Reader {
  pos: number;
  constructor(readonly buf: Buffer, start: number, public end: number) { this.pos = start; }

  fail(what: string): never {
    throw Errors.badRequest(`malformed ModelInferRequest: ${what} at byte ${this.pos}`);
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
}

/** Parse a length-delimited sub-message with reads bounded by its own length. */
function nested<T>(r: Reader, parse: (end: number) => T): T {
  const end = r.sub();
  const saved = r.end;
  r.end = end;
  const v = parse(end);
  r.end = saved;
  return v;
}

function parameter(r: Reader, end: number): InferParameterMsg {
  const p: InferParameterMsg = {};
  const set = (choice: NonNullable<InferParameterMsg['parameter_choice']>, v: unknown) => {
    // A oneof keeps the last choice on the wire.
    if (p.parameter_choice) delete p[p.parameter_choice];
    (p as Record<string, unknown>)[choice] = v;
    p.parameter_choice = choice;
  };
  while (r.pos < end) {
    const tag = r.uint();
    switch (tag) {
      case 0x08: set('bool_param', r.low32() !== 0); break;
      case 0x10: set('int64_param', r.int64(true)); break;
      case 0x1a: set('string_param', r.string()); break;
      case 0x21: {
        if (r.pos + 8 > end) r.fail('truncated double');
        set('double_param', r.buf.readDoubleLE(r.pos));
        r.pos += 8;
        break;
      }
      case 0x28: set('uint64_param', r.int64(false)); break;
      default: r.skip(tag & 7);
    }
  }
  return p;
}

/** One map<string, InferParameter> entry, added to `map`. */
function mapEntry(r: Reader, map: ParameterMap): void {
  nested(r, (end) => {
    let key = '';
    let value: InferParameterMsg = {};
    while (r.pos < end) {
      const tag = r.uint();
      if (tag === 0x0a) key = r.string();
      else if (tag === 0x12) value = nested(r, (e) => parameter(r, e));
      else r.skip(tag & 7);
    }
    map[key] = value;
  });
}

/** A repeated scalar, packed (wire type 2) or one element per tag (wire type `native`). */
function repeated<T>(r: Reader, wire: number, native: number, out: T[], one: () => T): void {
  if (wire === native) { out.push(one()); return; }
  if (wire !== 2) { r.skip(wire); return; }
  nested(r, (end) => { while (r.pos < end) out.push(one()); });
}

function contents(r: Reader, end: number): InferTensorContentsMsg {
  const c = {
    bool_contents: [] as boolean[], int_contents: [] as number[], int64_contents: [] as Int64[], uint_contents: [] as number[],
    uint64_contents: [] as Int64[], fp32_contents: [] as number[], fp64_contents: [] as number[], bytes_contents: [] as Uint8Array[],
  };
  const fixed = (width: number, read: (at: number) => number) => () => {
    if (r.pos + width > r.end) r.fail('truncated fixed-width value');
    const v = read(r.pos);
    r.pos += width;
    return v;
  };
  const f32 = fixed(4, (at) => r.buf.readFloatLE(at));
  const f64 = fixed(8, (at) => r.buf.readDoubleLE(at));
  while (r.pos < end) {
    const tag = r.uint();
    const wire = tag & 7;
    switch (tag >>> 3) {
      case 1: repeated(r, wire, 0, c.bool_contents, () => r.low32() !== 0); break;
      case 2: repeated(r, wire, 0, c.int_contents, () => r.low32() | 0); break;
      case 3: repeated(r, wire, 0, c.int64_contents, () => r.int64(true)); break;
      case 4: repeated(r, wire, 0, c.uint_contents, () => r.low32() >>> 0); break;
      case 5: repeated(r, wire, 0, c.uint64_contents, () => r.int64(false)); break;
      case 6: repeated(r, wire, 5, c.fp32_contents, f32); break;
      case 7: repeated(r, wire, 1, c.fp64_contents, f64); break;
      case 8: if (wire === 2) c.bytes_contents.push(r.bytes()); else r.skip(wire); break;
      default: r.skip(wire);
    }
  }
  return c;
}

function input(r: Reader, end: number): InferInputTensorMsg {
  const t: InferInputTensorMsg = { shape: [], parameters: {}, name: '', datatype: '', contents: null };
  while (r.pos < end) {
    const tag = r.uint();
    switch (tag) {
      case 0x0a: t.name = r.string(); break;
      case 0x12: t.datatype = r.string(); break;
      case 0x18: case 0x1a: repeated(r, tag & 7, 0, t.shape, () => r.int64(true)); break;
      case 0x22: mapEntry(r, t.parameters!); break;
      case 0x2a: t.contents = nested(r, (e) => contents(r, e)); break;
      default: r.skip(tag & 7);
    }
  }
  return t;
}

function output(r: Reader, end: number): InferRequestedOutputTensorMsg {
  const o: InferRequestedOutputTensorMsg = { parameters: {}, name: '' };
  while (r.pos < end) {
    const tag = r.uint();
    if (tag === 0x0a) o.name = r.string();
    else if (tag === 0x12) mapEntry(r, o.parameters!);
    else r.skip(tag & 7);
  }
  return o;
}

/** Decode one ModelInferRequest; `bytes` fields view `buf`. Malformed input is INVALID_ARG. */
export function decodeInferRequest(buf: Buffer): ModelInferRequestMsg {
  const r = new Reader(buf, 0, buf.length);
  const m = {
    inputs: [] as InferInputTensorMsg[], outputs: [] as InferRequestedOutputTensorMsg[], raw_input_contents: [] as Uint8Array[],
    parameters: {} as ParameterMap, model_name: '', model_version: '', id: '',
  };
  while (r.pos < r.end) {
    const tag = r.uint();
    switch (tag) {
      case 0x0a: m.model_name = r.string(); break;
      case 0x12: m.model_version = r.string(); break;
      case 0x1a: m.id = r.string(); break;
      case 0x22: mapEntry(r, m.parameters); break;
      case 0x2a: m.inputs.push(nested(r, (e) => input(r, e))); break;
      case 0x32: m.outputs.push(nested(r, (e) => output(r, e))); break;
      case 0x3a: m.raw_input_contents.push(r.bytes()); break;
      default: r.skip(tag & 7);
    }
  }
  return m;
}
