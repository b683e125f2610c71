import { Errors } from '../../errors.js';
import {
  hasContents, parametersFromProto, tensorFromContents, type ModelInferResponseMsg,
} from '../../protocol/grpc/index.js';
import { isDataType, tensorFromBytes, type Tensor } from '../../tensor/index.js';
import { inferResult } from '../infer-result.js';
import type { InferResult } from '../types.js';

/**
 * A ModelInferResponse as an InferResult. raw_output_contents become typed-array views over the
 * received message (one copy only when an offset is misaligned); typed contents (servers that
 * answer that way) are the slow path. `triton_final_response` is stream bookkeeping and is dropped.
 */
export function decodeGrpcInfer(msg: ModelInferResponseMsg): InferResult {
  const raw = msg.raw_output_contents ?? [];
  const outputs: Tensor[] = msg.outputs.map((o, i) => {
    if (!isDataType(o.datatype)) throw Errors.badDatatype(o.name, o.datatype);
    const shape = o.shape.map(Number);
    if (o.parameters?.shared_memory_region) return { name: o.name, datatype: o.datatype, shape, data: [] as Uint8Array[] };
    if (i < raw.length) return tensorFromBytes(o.name, o.datatype, shape, raw[i]!);
    if (hasContents(o.contents)) return tensorFromContents(o.name, o.datatype, shape, o.contents);
    return tensorFromBytes(o.name, o.datatype, shape, new Uint8Array(0));
  });
  const parameters = parametersFromProto(msg.parameters) ?? {};
  delete parameters.triton_final_response;
  return inferResult(msg.model_name, msg.model_version, msg.id, outputs, parameters);
}
