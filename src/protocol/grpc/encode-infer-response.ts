/**
 * A hand-written protobuf encoder for ModelInferResponse and ModelStreamInferResponse, the hot
 * path's outgoing messages. protobufjs' generic fromObject + encode costs ~14 us for a tiny
 * response here; this computes the size once and writes one buffer (raw output bytes copied
 * once, as any encoder must). Wire layout per grpc_service.proto; tests decode the result with
 * the generic decoder to prove equivalence.
 */
import type { InferParameterMsg, ModelInferResponseMsg, ModelStreamInferResponseMsg, ParameterMap } from './messages.js';

const utf8Len = (s: string) => Buffer.byteLength(s, 'utf8');

function varintLen(n: number): number {
  if (n < 0) return 10;
  let len = 1;
  while (n >= 128) { n = Math.floor(n / 128); len++; }
  return len;
}

function bigVarintLen(v: bigint): number {
  let u = BigInt.asUintN(64, v);
  let len = 1;
  while (u >= 128n) { u >>= 7n; len++; }
  return len;
}

class Writer {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  byte(b: number) { this.buf[this.pos++] = b; }
  varint(n: number) {
    if (n < 0) { this.bigVarint(BigInt(n)); return; }
    while (n >= 128) { this.buf[this.pos++] = (n % 128) | 128; n = Math.floor(n / 128); }
    this.buf[this.pos++] = n;
  }
  bigVarint(v: bigint) {
    let u = BigInt.asUintN(64, v);
    while (u >= 128n) { this.buf[this.pos++] = Number(u & 127n) | 128; u >>= 7n; }
    this.buf[this.pos++] = Number(u);
  }
  string(tag: number, s: string, len: number) {
    this.byte(tag); this.varint(len); this.pos += this.buf.write(s, this.pos, 'utf8');
  }
  bytes(tag: number, b: Uint8Array) {
    this.byte(tag); this.varint(b.byteLength); this.buf.set(b, this.pos); this.pos += b.byteLength;
  }
}

/** An int64 value as number or bigint (strings from the decoder are accepted too). */
const asInt = (v: string | number | undefined): number | bigint => {
  if (typeof v === 'number') return v;
  const n = Number(v ?? 0);
  return Number.isSafeInteger(n) ? n : BigInt(v!);
};
const intLen = (v: number | bigint) => (typeof v === 'bigint' ? bigVarintLen(v) : varintLen(v));

/** Size of one InferParameter body. */
function paramLen(p: InferParameterMsg): number {
  if (p.bool_param !== undefined) return 2;
  if (p.int64_param !== undefined) return 1 + intLen(asInt(p.int64_param));
  if (p.string_param !== undefined) { const l = utf8Len(p.string_param); return 1 + varintLen(l) + l; }
  if (p.double_param !== undefined) return 9;
  if (p.uint64_param !== undefined) return 1 + intLen(asInt(p.uint64_param));
  return 0;
}

function writeParam(w: Writer, p: InferParameterMsg): void {
  if (p.bool_param !== undefined) { w.byte(0x08); w.byte(p.bool_param ? 1 : 0); return; }
  if (p.int64_param !== undefined) { w.byte(0x10); const v = asInt(p.int64_param); typeof v === 'bigint' ? w.bigVarint(v) : w.varint(v); return; }
  if (p.string_param !== undefined) { w.string(0x1a, p.string_param, utf8Len(p.string_param)); return; }
  if (p.double_param !== undefined) { w.byte(0x21); w.buf.writeDoubleLE(p.double_param, w.pos); w.pos += 8; return; }
  if (p.uint64_param !== undefined) { w.byte(0x28); const v = asInt(p.uint64_param); typeof v === 'bigint' ? w.bigVarint(v) : w.varint(v); }
}

/** Size of a map<string, InferParameter> field (all entries, with their tags). */
function mapLen(map: ParameterMap | undefined): number {
  if (!map) return 0;
  let n = 0;
  for (const k in map) {
    const kl = utf8Len(k);
    const vl = paramLen(map[k]!);
    const entry = 1 + varintLen(kl) + kl + 1 + varintLen(vl) + vl;
    n += 1 + varintLen(entry) + entry;
  }
  return n;
}

function writeMap(w: Writer, tag: number, map: ParameterMap | undefined): void {
  if (!map) return;
  for (const k in map) {
    const kl = utf8Len(k);
    const p = map[k]!;
    const vl = paramLen(p);
    w.byte(tag);
    w.varint(1 + varintLen(kl) + kl + 1 + varintLen(vl) + vl);
    w.string(0x0a, k, kl);
    w.byte(0x12); w.varint(vl); writeParam(w, p);
  }
}

interface Sizes { total: number; outputs: number[]; shapes: number[] }

function sizes(m: ModelInferResponseMsg): Sizes {
  let total = 0;
  const str = (s: string | undefined) => { if (s) { const l = utf8Len(s); total += 1 + varintLen(l) + l; } };
  str(m.model_name); str(m.model_version); str(m.id);
  total += mapLen(m.parameters);
  const outputs: number[] = [];
  const shapes: number[] = [];
  for (const o of m.outputs) {
    let n = 0;
    const nl = utf8Len(o.name); n += 1 + varintLen(nl) + nl;
    const dl = utf8Len(o.datatype); n += 1 + varintLen(dl) + dl;
    let sl = 0;
    for (const d of o.shape) sl += intLen(asInt(d));
    shapes.push(sl);
    if (o.shape.length > 0) n += 1 + varintLen(sl) + sl;
    n += mapLen(o.parameters);
    outputs.push(n);
    total += 1 + varintLen(n) + n;
  }
  for (const r of m.raw_output_contents) total += 1 + varintLen(r.byteLength) + r.byteLength;
  return { total, outputs, shapes };
}

function writeResponse(w: Writer, m: ModelInferResponseMsg, s: Sizes): void {
  if (m.model_name) w.string(0x0a, m.model_name, utf8Len(m.model_name));
  if (m.model_version) w.string(0x12, m.model_version, utf8Len(m.model_version));
  if (m.id) w.string(0x1a, m.id, utf8Len(m.id));
  writeMap(w, 0x22, m.parameters);
  m.outputs.forEach((o, i) => {
    w.byte(0x2a); w.varint(s.outputs[i]!);
    w.string(0x0a, o.name, utf8Len(o.name));
    w.string(0x12, o.datatype, utf8Len(o.datatype));
    if (o.shape.length > 0) {
      w.byte(0x1a); w.varint(s.shapes[i]!);
      for (const d of o.shape) { const v = asInt(d); typeof v === 'bigint' ? w.bigVarint(v) : w.varint(v); }
    }
    writeMap(w, 0x22, o.parameters);
  });
  for (const r of m.raw_output_contents) w.bytes(0x32, r);
}

/** Encode a ModelInferResponse (typed `contents` on outputs are not supported: the server sends raw). */
export function encodeInferResponse(m: ModelInferResponseMsg): Buffer {
  return encodeResponse(m, false);
}

/**
 * The same, as one gRPC length-prefixed message (an uncompressed flag, the big-endian length,
 * the message), written in place: the direct ModelInfer path sends it without another copy.
 */
export function encodeInferResponseFrame(m: ModelInferResponseMsg): Buffer {
  return encodeResponse(m, true);
}

function encodeResponse(m: ModelInferResponseMsg, framed: boolean): Buffer {
  const s = sizes(m);
  const lead = framed ? 5 : 0;
  const w = new Writer(Buffer.allocUnsafe(lead + s.total));
  if (framed) {
    w.byte(0);
    w.buf.writeUInt32BE(s.total, 1);
    w.pos = lead;
  }
  writeResponse(w, m, s);
  return w.buf;
}

/** Encode a ModelStreamInferResponse: error_message (1) and infer_response (2). */
export function encodeStreamInferResponse(m: ModelStreamInferResponseMsg): Buffer {
  const el = m.error_message ? utf8Len(m.error_message) : 0;
  const inner = m.infer_response ? sizes(m.infer_response) : undefined;
  const total = (el ? 1 + varintLen(el) + el : 0) + (inner ? 1 + varintLen(inner.total) + inner.total : 0);
  const w = new Writer(Buffer.allocUnsafe(total));
  if (el) w.string(0x0a, m.error_message, el);
  if (inner) { w.byte(0x12); w.varint(inner.total); writeResponse(w, m.infer_response!, inner); }
  return w.buf;
}
