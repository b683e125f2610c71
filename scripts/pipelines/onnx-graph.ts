/**
 * The few ONNX graph-building helpers the pipeline model builders need, over `onnx-proto`'s
 * protobuf definitions (no Python, no onnx package). Kept here rather than in scripts/onnx/ so
 * the pipeline builders do not depend on another builder's schedule; the shapes are the same.
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
export type NodeProto = onnxProto.onnx.INodeProto;
export type TensorProto = onnxProto.onnx.ITensorProto;
export type ValueInfoProto = onnxProto.onnx.IValueInfoProto;

export type ElemType = 'FLOAT' | 'INT64';
export type Dim = number | string;

const elem = (t: ElemType): number => onnx.TensorProto.DataType[t];

/** A graph input or output: symbolic dims are strings (`batch`), fixed dims numbers. */
export function valueInfo(name: string, type: ElemType, dims: Dim[]): ValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: elem(type),
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

/** A float initializer, stored as raw little-endian bytes (compact, and what ORT reads fastest). */
export function floatTensor(name: string, dims: number[], values: Float32Array): TensorProto {
  if (values.length !== dims.reduce((a, b) => a * b, 1)) {
    throw new Error(`initializer ${name}: ${values.length} values do not fill dims [${dims}]`);
  }
  const le = new Float32Array(values); // copy so the raw bytes are this array's own buffer
  return { name, dims, dataType: elem('FLOAT'), rawData: new Uint8Array(le.buffer) };
}

export function int64Tensor(name: string, dims: number[], values: number[]): TensorProto {
  const raw = new BigInt64Array(values.map((v) => BigInt(v)));
  return { name, dims, dataType: elem('INT64'), rawData: new Uint8Array(raw.buffer) };
}

export interface NodeAttrs { [name: string]: number | number[] | string }

export function node(opType: string, inputs: string[], outputs: string[], attrs: NodeAttrs = {}): NodeProto {
  const AT = onnx.AttributeProto.AttributeType;
  const attribute = Object.entries(attrs).map(([name, v]) => {
    if (Array.isArray(v)) return { name, type: AT.INTS, ints: v };
    if (typeof v === 'string') return { name, type: AT.STRING, s: new TextEncoder().encode(v) };
    return Number.isInteger(v) ? { name, type: AT.INT, i: v } : { name, type: AT.FLOAT, f: v };
  });
  return { opType, input: inputs, output: outputs, name: `${opType}_${outputs[0]}`, attribute };
}

export interface GraphSpec {
  name: string;
  doc: string;
  inputs: ValueInfoProto[];
  outputs: ValueInfoProto[];
  initializers: TensorProto[];
  nodes: NodeProto[];
  /** default-domain opset (13: ReduceSum takes its axes as an input, as sentiment-lexicon.ts passes them) */
  opset?: number;
}

/** Serialises a graph into ONNX model bytes (IR 8, opset 13 by default). */
export function encodeModel(spec: GraphSpec): Uint8Array {
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'tributary-build-pipeline-models',
    docString: spec.doc,
    opsetImport: [{ domain: '', version: spec.opset ?? 13 }],
    graph: {
      name: spec.name,
      input: spec.inputs,
      output: spec.outputs,
      initializer: spec.initializers,
      node: spec.nodes,
    },
  });
  return onnx.ModelProto.encode(model).finish();
}
