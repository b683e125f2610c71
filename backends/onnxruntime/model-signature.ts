import type * as ort from 'onnxruntime-node';
import type { DataType } from '../../src/tensor/index.js';
import { dataTypeOfOrt } from './ort-tensor.js';

/** One graph input or output as the model file declares it; symbolic and unknown dims are -1. */
export interface IoSignature {
  readonly name: string;
  /** undefined when ORT's type has no Triton datatype (bfloat16, non-tensor values). */
  readonly datatype: DataType | undefined;
  /** ORT's own type name, for messages. */
  readonly ortType: string;
  readonly dims: readonly number[];
  /** Original dims with symbolic names kept ('batch', 'p2o.DynamicDimension.0'), for messages. */
  readonly rawDims: readonly (number | string)[];
}

export interface ModelSignature {
  readonly inputs: readonly IoSignature[];
  readonly outputs: readonly IoSignature[];
}

function toIo(m: ort.InferenceSession.ValueMetadata): IoSignature {
  if (!m.isTensor) return { name: m.name, datatype: undefined, ortType: 'non-tensor', dims: [], rawDims: [] };
  const rawDims = [...m.shape];
  return {
    name: m.name,
    datatype: dataTypeOfOrt(m.type),
    ortType: m.type,
    dims: m.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : -1)),
    rawDims,
  };
}

/** The graph's inputs and outputs from session metadata (initializer-backed inputs excluded by ORT). */
export function modelSignature(session: ort.InferenceSession): ModelSignature {
  return { inputs: session.inputMetadata.map(toIo), outputs: session.outputMetadata.map(toIo) };
}

export function formatRawDims(io: IoSignature): string {
  return `[${io.rawDims.map((d) => (d === '' ? '?' : d)).join(',')}]`;
}
