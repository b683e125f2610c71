import type { onnx as OnnxNs } from 'onnx-proto';
import { ONNX_ELEM_TYPE, onnx, type ElemType } from './onnx-types.js';

/** A dimension: a fixed size, a symbolic name ('batch', 'p2o.DynamicDimension.0'), or -1 (unnamed, unknown). */
export type Dim = number | string;

/** Tensor data for initializers: a typed array of the element type's storage, or plain values. */
export type TensorValues =
  | Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array
  | BigUint64Array | BigInt64Array | Float32Array | Float64Array
  | readonly number[] | readonly bigint[] | readonly boolean[] | readonly string[];

/**
 * Attribute values. Integers become INT, other numbers FLOAT; use `floatAttr` to force FLOAT for
 * an integral value (e.g. `alpha: floatAttr(1)`). Arrays follow the same rule element-wise.
 */
export type AttrValue = number | string | readonly number[] | readonly string[] | FloatAttr | OnnxNs.ITensorProto;
export interface FloatAttr { readonly float: number | readonly number[] }
export function floatAttr(v: number | readonly number[]): FloatAttr {
  return { float: v };
}

export interface ModelOptions {
  /** Default opset 17 (needs IR version 8, the newest onnx-proto knows). */
  opset?: number;
  irVersion?: number;
  producer?: string;
  docString?: string;
}

const STORAGE: Record<Exclude<ElemType, 'BYTES'>, { new (n: number): ArrayBufferView & ArrayLike<unknown> }> = {
  BOOL: Uint8Array, UINT8: Uint8Array, UINT16: Uint16Array, UINT32: Uint32Array, UINT64: BigUint64Array,
  INT8: Int8Array, INT16: Int16Array, INT32: Int32Array, INT64: BigInt64Array,
  FP16: Uint16Array, FP32: Float32Array, FP64: Float64Array, BF16: Uint16Array,
};

/** An onnx.TensorProto; numeric data goes to raw_data (little-endian, as every target here is). */
export function tensorProto(name: string, type: ElemType, dims: readonly number[], values: TensorValues): OnnxNs.TensorProto {
  const count = dims.reduce((a, b) => a * b, 1);
  if (values.length !== count) throw new Error(`tensor '${name}': dims [${dims.join(',')}] need ${count} values, got ${values.length}`);
  const t = onnx.TensorProto.create({ name, dataType: ONNX_ELEM_TYPE[type], dims: [...dims] });
  if (type === 'BYTES') {
    const enc = new TextEncoder();
    t.stringData = (values as readonly unknown[]).map((v) => (typeof v === 'string' ? enc.encode(v) : (v as Uint8Array)));
    return t;
  }
  let arr = values as ArrayBufferView & ArrayLike<unknown>;
  if (!ArrayBuffer.isView(values)) {
    const Ctor = STORAGE[type];
    const out = new Ctor(count) as unknown as unknown[];
    const big = type === 'INT64' || type === 'UINT64';
    (values as readonly unknown[]).forEach((v, i) => { out[i] = big ? BigInt(v as number) : Number(v); });
    arr = out as unknown as ArrayBufferView & ArrayLike<unknown>;
  }
  t.rawData = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
  return t;
}

function valueInfo(name: string, type: ElemType, dims: readonly Dim[]): OnnxNs.ValueInfoProto {
  const dim = dims.map((d) => (typeof d === 'string' ? { dimParam: d } : d < 0 ? {} : { dimValue: d }));
  return onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType: ONNX_ELEM_TYPE[type], shape: { dim } } },
  });
}

function attribute(name: string, v: AttrValue): OnnxNs.AttributeProto {
  const A = onnx.AttributeProto.AttributeType;
  const a = onnx.AttributeProto.create({ name });
  if (typeof v === 'number') {
    if (Number.isInteger(v)) { a.type = A.INT; a.i = v; } else { a.type = A.FLOAT; a.f = v; }
  } else if (typeof v === 'string') {
    a.type = A.STRING; a.s = new TextEncoder().encode(v);
  } else if (Array.isArray(v)) {
    if (v.every((x) => typeof x === 'string')) { a.type = A.STRINGS; a.strings = (v as string[]).map((s) => new TextEncoder().encode(s)); }
    else if (v.every((x) => Number.isInteger(x))) { a.type = A.INTS; a.ints = [...(v as number[])]; }
    else { a.type = A.FLOATS; a.floats = [...(v as number[])]; }
  } else if ('float' in (v as object)) {
    const f = (v as FloatAttr).float;
    if (typeof f === 'number') { a.type = A.FLOAT; a.f = f; } else { a.type = A.FLOATS; a.floats = [...f]; }
  } else {
    a.type = A.TENSOR; a.t = v as OnnxNs.ITensorProto;
  }
  return a;
}

/**
 * Builds one ONNX graph: inputs, outputs, nodes, initializers and intermediate value infos, then a
 * ModelProto with an opset import. Methods chain. Node names default to `<op>_<n>`.
 */
export class GraphBuilder {
  readonly #graph: OnnxNs.GraphProto;
  #nodes = 0;

  constructor(name: string) {
    this.#graph = onnx.GraphProto.create({ name });
  }

  input(name: string, type: ElemType, dims: readonly Dim[]): this {
    this.#graph.input.push(valueInfo(name, type, dims));
    return this;
  }

  output(name: string, type: ElemType, dims: readonly Dim[]): this {
    this.#graph.output.push(valueInfo(name, type, dims));
    return this;
  }

  /** Declare the type and shape of an intermediate value (optional; ORT infers most). */
  valueInfo(name: string, type: ElemType, dims: readonly Dim[]): this {
    this.#graph.valueInfo.push(valueInfo(name, type, dims));
    return this;
  }

  initializer(name: string, type: ElemType, dims: readonly number[], values: TensorValues): this {
    this.#graph.initializer.push(tensorProto(name, type, dims, values));
    return this;
  }

  node(op: string, inputs: readonly string[], outputs: readonly string[], attrs: Record<string, AttrValue> = {}, opts: { name?: string; domain?: string } = {}): this {
    this.#graph.node.push(onnx.NodeProto.create({
      opType: op,
      name: opts.name ?? `${op}_${this.#nodes}`,
      domain: opts.domain ?? '',
      input: [...inputs],
      output: [...outputs],
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    }));
    this.#nodes++;
    return this;
  }

  build(opts: ModelOptions = {}): OnnxNs.ModelProto {
    return onnx.ModelProto.create({
      irVersion: opts.irVersion ?? 8,
      producerName: opts.producer ?? 'tributary',
      docString: opts.docString ?? '',
      opsetImport: [{ domain: '', version: opts.opset ?? 17 }],
      graph: this.#graph,
    });
  }

  /** The serialized model (.onnx file contents). */
  encode(opts: ModelOptions = {}): Uint8Array {
    return onnx.ModelProto.encode(this.build(opts)).finish();
  }
}

export function createGraph(name: string): GraphBuilder {
  return new GraphBuilder(name);
}
