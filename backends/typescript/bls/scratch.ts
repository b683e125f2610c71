import type { DataType } from '../../../src/tensor/index.js';
import { utf8Decode, utf8Encode } from './utf8.js';
import type { WireChildRequest, WireRequest, WireResponse, WireTensor } from './wire.js';

/**
 * The fast lane of the host channel: one SharedArrayBuffer per isolate that both sides see, holding
 * one message at a time in a flat binary encoding. Structured-cloning a small request list costs
 * about 3 µs and a response sent back through a callback about 6 µs; written here, a message costs
 * one copy of its tensor bytes, and the calls across carry only numbers (`IN_SCRATCH` in place of
 * the message). Both sides run this same file, so the format has one definition.
 *
 * Only one side runs at a time (the host has one entry in flight and waits for it to settle; the
 * script's thread waits while a synchronous callback runs on the host), so nothing races. A
 * message that does not fit, or holds a value the format lacks (an error, odd parameters, a typed
 * array that does not match its datatype), goes the structured-clone way instead, with unchanged
 * behaviour and errors. The host reads what the sandbox wrote as untrusted: every length is
 * bounds-checked.
 *
 * Lifetimes: the host writes a message just before entering and the sandbox decodes it first thing;
 * the sandbox writes decoupled responses just before the callback that decodes them (child
 * requests are cloned instead: their callback does not wait, see host-channel.ts). A call's
 * completion is different: it is written during an entry and read when the entry settles, so it
 * is "held" and blocks every other write in that entry (those take the clone path).
 */
export const SCRATCH_BYTES = 64 * 1024;

/** Passed in place of a message: "it is in the scratch buffer". */
export const IN_SCRATCH = -1;

// Its own order (the codes are this format's, not the proto's); the type keeps each a real datatype.
const DTYPES: readonly DataType[] = ['BOOL', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'INT8', 'INT16', 'INT32', 'INT64', 'FP16', 'FP32', 'FP64', 'BF16', 'BYTES'];
type Ctor = { new (n: number): ArrayBufferView & { length: number }; BYTES_PER_ELEMENT: number };
/** Storage per datatype code (the rules of src/tensor/datatype.ts); BYTES travel packed. */
const CTORS: Ctor[] = [
  Uint8Array, Uint8Array, Uint16Array, Uint32Array, BigUint64Array, Int8Array, Int16Array, Int32Array, BigInt64Array,
  Uint16Array, Float32Array, Float64Array, Uint16Array, Uint8Array,
] as unknown as Ctor[];
const CODES = new Map<string, number>(DTYPES.map((d, i) => [d, i]));

/** Thrown (and caught) while writing: the message takes the clone path. */
const NO = Symbol('unencodable');

const HELD = 0;
const START = 8;
const T_STRING = 0, T_NUMBER = 1, T_TRUE = 2, T_FALSE = 3, T_BIGINT = 4;
const P_NONE = 0xffffffff;
const C_NONE = 0, C_STRING = 1, C_BIGINT = 2;
const O_MODEL = 1, O_VERSION = 2, O_OUTPUTS = 4, O_PARAMS = 8, O_CORR = 16, O_START = 32, O_END = 64, O_TIMEOUT = 128, O_PRIORITY = 256;

export class Scratch {
  readonly #u8: Uint8Array;
  readonly #dv: DataView;
  #p = START;

  constructor(buffer: ArrayBufferLike) {
    this.#u8 = new Uint8Array(buffer);
    this.#dv = new DataView(buffer);
  }

  /** A call completion is waiting for the host. */
  get held(): boolean {
    return this.#dv.getUint32(HELD, true) !== 0;
  }

  // ---- messages -------------------------------------------------------------------------------

  writeRequests(rs: readonly WireRequest[]): boolean {
    return this.#write(() => {
      this.#u32(rs.length);
      for (const r of rs) {
        this.#str(r.id);
        this.#tensors(r.inputs);
        this.#params(r.parameters);
        this.#strs(r.outputs);
        this.#corr(r.correlationId);
      }
    });
  }

  readRequests(): WireRequest[] {
    this.#p = START;
    const n = this.#ru32();
    const out: WireRequest[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const w: WireRequest = { id: this.#rstr(), inputs: this.#rtensors(), parameters: this.#rparams() ?? {}, outputs: this.#rstrs() };
      const c = this.#rcorr();
      if (c !== undefined) w.correlationId = c;
      out[i] = w;
    }
    return out;
  }

  writeResponse(r: WireResponse): boolean {
    return this.#write(() => this.#response(r));
  }

  readResponse(): WireResponse {
    this.#p = START;
    return this.#rresponse();
  }

  /** A call's result (null: decoupled, initialize, finalize); held until the host takes it. */
  writeCompletion(callId: number, rs: readonly WireResponse[] | null): boolean {
    const ok = this.#write(() => {
      this.#f64(callId);
      if (rs === null) { this.#u32(P_NONE); return; }
      this.#u32(rs.length);
      for (const r of rs) this.#response(r);
    });
    if (ok) this.#dv.setUint32(HELD, 1, true);
    return ok;
  }

  /** The held completion, released. */
  takeCompletion(): { callId: number; responses: WireResponse[] | null } {
    this.#dv.setUint32(HELD, 0, true);
    this.#p = START;
    const callId = this.#rf64();
    const n = this.#ru32();
    if (n === P_NONE) return { callId, responses: null };
    this.#need(n);
    const responses: WireResponse[] = new Array(n);
    for (let i = 0; i < n; i++) responses[i] = this.#rresponse();
    return { callId, responses };
  }

  writeChildRequest(w: WireChildRequest): boolean {
    return this.#write(() => {
      let flags = O_MODEL;
      if (w.version !== undefined) flags |= O_VERSION;
      if (w.outputs !== undefined) flags |= O_OUTPUTS;
      if (w.parameters !== undefined) flags |= O_PARAMS;
      if (w.correlationId !== undefined) flags |= O_CORR;
      if (w.sequenceStart !== undefined) flags |= O_START;
      if (w.sequenceEnd !== undefined) flags |= O_END;
      if (w.timeout !== undefined) flags |= O_TIMEOUT;
      if (w.priority !== undefined) flags |= O_PRIORITY;
      this.#u32(flags);
      this.#str(w.model);
      this.#tensors(w.inputs);
      this.#f64(w.parent);
      if (w.version !== undefined) this.#str(w.version);
      if (w.outputs !== undefined) this.#strs(w.outputs);
      if (w.parameters !== undefined) this.#params(w.parameters);
      if (w.correlationId !== undefined) this.#corr(w.correlationId);
      if (w.sequenceStart !== undefined) this.#bool(w.sequenceStart);
      if (w.sequenceEnd !== undefined) this.#bool(w.sequenceEnd);
      if (w.timeout !== undefined) this.#num(w.timeout);
      if (w.priority !== undefined) this.#num(w.priority);
    });
  }

  readChildRequest(): WireChildRequest {
    this.#p = START;
    const flags = this.#ru32();
    const w: WireChildRequest = { model: this.#rstr(), inputs: this.#rtensors(), parent: this.#rf64() };
    if (flags & O_VERSION) w.version = this.#rstr();
    if (flags & O_OUTPUTS) w.outputs = this.#rstrs();
    if (flags & O_PARAMS) w.parameters = this.#rparams();
    if (flags & O_CORR) w.correlationId = this.#rcorr();
    if (flags & O_START) w.sequenceStart = this.#ru32() === 1;
    if (flags & O_END) w.sequenceEnd = this.#ru32() === 1;
    if (flags & O_TIMEOUT) w.timeout = this.#rf64();
    if (flags & O_PRIORITY) w.priority = this.#rf64();
    return w;
  }

  // ---- writing --------------------------------------------------------------------------------

  #write(f: () => void): boolean {
    if (this.held) return false;
    this.#p = START;
    try {
      f();
      return true;
    } catch (e) {
      if (e === NO) return false;
      throw e;
    }
  }

  #room(n: number): void {
    if (this.#p + n > this.#u8.length) throw NO;
  }

  #u32(v: number): void {
    this.#room(4);
    this.#dv.setUint32(this.#p, v, true);
    this.#p += 4;
  }

  #f64(v: number): void {
    this.#room(8);
    this.#dv.setFloat64(this.#p, v, true);
    this.#p += 8;
  }

  #num(v: unknown): void {
    if (typeof v !== 'number') throw NO;
    this.#f64(v);
  }

  #bool(v: unknown): void {
    if (typeof v !== 'boolean') throw NO;
    this.#u32(v ? 1 : 0);
  }

  #str(s: unknown): void {
    if (typeof s !== 'string') throw NO;
    const n = s.length;
    this.#room(4 + n);
    const u8 = this.#u8;
    const at = this.#p + 4;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) return this.#utf8(s);
      u8[at + i] = c;
    }
    this.#dv.setUint32(this.#p, n, true);
    this.#p = at + n;
  }

  #utf8(s: string): void {
    const b = utf8Encode(s);
    this.#room(4 + b.length);
    this.#dv.setUint32(this.#p, b.length, true);
    this.#u8.set(b, this.#p + 4);
    this.#p += 4 + b.length;
  }

  #strs(a: unknown): void {
    if (!Array.isArray(a)) throw NO;
    this.#u32(a.length);
    for (const s of a) this.#str(s);
  }

  #tensors(ts: unknown): void {
    if (!Array.isArray(ts)) throw NO;
    this.#u32(ts.length);
    for (const t of ts as WireTensor[]) {
      const code = t ? CODES.get(t.datatype) : undefined;
      if (code === undefined || !Array.isArray(t.shape) || !(t.data instanceof CTORS[code]!)) throw NO;
      this.#str(t.name);
      this.#u32(code);
      this.#u32(t.shape.length);
      for (const d of t.shape) this.#num(d);
      const d = t.data;
      const nb = d.byteLength;
      this.#u32(nb);
      this.#room(nb);
      this.#u8.set(new Uint8Array(d.buffer, d.byteOffset, nb), this.#p);
      this.#p += nb;
    }
  }

  /** Plain objects of string/number/boolean/int64 values (absent: P_NONE). */
  #params(o: unknown): void {
    if (o === undefined) { this.#u32(P_NONE); return; }
    if (o === null || typeof o !== 'object' || Object.getPrototypeOf(o) !== Object.prototype) throw NO;
    const keys = Object.keys(o);
    this.#u32(keys.length);
    for (const k of keys) {
      const v = (o as Record<string, unknown>)[k];
      if (k === '__proto__') throw NO;
      this.#str(k);
      if (typeof v === 'string') { this.#u32(T_STRING); this.#str(v); }
      else if (typeof v === 'number') { this.#u32(T_NUMBER); this.#f64(v); }
      else if (typeof v === 'boolean') this.#u32(v ? T_TRUE : T_FALSE);
      else if (typeof v === 'bigint' && BigInt.asIntN(64, v) === v) {
        this.#u32(T_BIGINT);
        this.#room(8);
        this.#dv.setBigInt64(this.#p, v, true);
        this.#p += 8;
      } else throw NO;
    }
  }

  #corr(c: unknown): void {
    if (c === undefined) this.#u32(C_NONE);
    else if (typeof c === 'string') { this.#u32(C_STRING); this.#str(c); }
    else if (typeof c === 'bigint' && BigInt.asUintN(64, c) === c) {
      this.#u32(C_BIGINT);
      this.#room(8);
      this.#dv.setBigUint64(this.#p, c, true);
      this.#p += 8;
    } else throw NO;
  }

  #response(r: WireResponse): void {
    if (!r || r.error !== undefined) throw NO;
    this.#tensors(r.outputs);
    this.#params(r.parameters);
  }

  // ---- reading (bounds-checked: the other side is not trusted) ---------------------------------

  #need(n: number): void {
    if (this.#p + n > this.#u8.length) throw new RangeError('scratch message is truncated');
  }

  #ru32(): number {
    const v = this.#dv.getUint32(this.#p, true);
    this.#p += 4;
    return v;
  }

  #rf64(): number {
    const v = this.#dv.getFloat64(this.#p, true);
    this.#p += 8;
    return v;
  }

  #rstr(): string {
    const n = this.#ru32();
    this.#need(n);
    const u8 = this.#u8;
    const at = this.#p;
    this.#p += n;
    if (n <= 32) {
      let s = '';
      for (let i = 0; i < n; i++) {
        const c = u8[at + i]!;
        if (c > 0x7f) return utf8Decode(u8.slice(at, at + n));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return utf8Decode(u8.slice(at, at + n));
  }

  #rstrs(): string[] {
    const n = this.#ru32();
    this.#need(n * 4);
    const out: string[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = this.#rstr();
    return out;
  }

  #rtensors(): WireTensor[] {
    const n = this.#ru32();
    this.#need(n * 16);
    const out: WireTensor[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const name = this.#rstr();
      const code = this.#ru32();
      const C = CTORS[code];
      if (!C) throw new RangeError(`scratch message has datatype code ${code}`);
      const nd = this.#ru32();
      this.#need(nd * 8);
      const shape: number[] = new Array(nd);
      for (let k = 0; k < nd; k++) shape[k] = this.#rf64();
      const nb = this.#ru32();
      this.#need(nb);
      if (nb % C.BYTES_PER_ELEMENT !== 0) throw new RangeError(`scratch message has ${nb} bytes of ${DTYPES[code]}`);
      const data = new C(nb / C.BYTES_PER_ELEMENT);
      new Uint8Array(data.buffer).set(this.#u8.subarray(this.#p, this.#p + nb));
      this.#p += nb;
      out[i] = { name, datatype: DTYPES[code]!, shape, data };
    }
    return out;
  }

  #rparams(): Record<string, unknown> | undefined {
    const n = this.#ru32();
    if (n === P_NONE) return undefined;
    this.#need(n * 8);
    const o: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const k = this.#rstr();
      if (k === '__proto__') throw new RangeError('scratch message has a parameter named __proto__');
      const t = this.#ru32();
      if (t === T_STRING) o[k] = this.#rstr();
      else if (t === T_NUMBER) o[k] = this.#rf64();
      else if (t === T_TRUE || t === T_FALSE) o[k] = t === T_TRUE;
      else if (t === T_BIGINT) { o[k] = this.#dv.getBigInt64(this.#p, true); this.#p += 8; }
      else throw new RangeError(`scratch message has parameter tag ${t}`);
    }
    return o;
  }

  #rcorr(): bigint | string | undefined {
    const t = this.#ru32();
    if (t === C_NONE) return undefined;
    if (t === C_STRING) return this.#rstr();
    if (t === C_BIGINT) { const v = this.#dv.getBigUint64(this.#p, true); this.#p += 8; return v; }
    throw new RangeError(`scratch message has correlation tag ${t}`);
  }

  #rresponse(): WireResponse {
    const outputs = this.#rtensors();
    const parameters = this.#rparams();
    return parameters === undefined ? { outputs } : { outputs, parameters };
  }
}
