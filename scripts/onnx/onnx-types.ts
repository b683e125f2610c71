import onnxProto from 'onnx-proto';
import type { DataType } from '../../src/tensor/index.js';

/** The generated protobuf namespace of onnx.proto (IR version 8), re-exported for builders. */
export const onnx = onnxProto.onnx;
export type { onnx as OnnxNamespace } from 'onnx-proto';

/** Element types by their Triton / KServe names, so builders speak the server's vocabulary. */
export type ElemType = DataType;

const D = onnxProto.onnx.TensorProto.DataType;

/** Triton datatype -> onnx.TensorProto.DataType. */
export const ONNX_ELEM_TYPE: Readonly<Record<ElemType, number>> = {
  BOOL: D.BOOL, UINT8: D.UINT8, UINT16: D.UINT16, UINT32: D.UINT32, UINT64: D.UINT64,
  INT8: D.INT8, INT16: D.INT16, INT32: D.INT32, INT64: D.INT64,
  FP16: D.FLOAT16, FP32: D.FLOAT, FP64: D.DOUBLE, BF16: D.BFLOAT16, BYTES: D.STRING,
};

const BY_ONNX = new Map<number, ElemType>(Object.entries(ONNX_ELEM_TYPE).map(([k, v]) => [v, k as ElemType]));

/** onnx.TensorProto.DataType -> Triton datatype; undefined for types Triton has no name for. */
export function elemTypeFromOnnx(t: number): ElemType | undefined {
  return BY_ONNX.get(t);
}
