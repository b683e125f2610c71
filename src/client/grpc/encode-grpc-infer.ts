import { parametersToProto, type ModelInferRequestMsg, type ParameterMap } from '../../protocol/grpc/index.js';
import { tensorToBytes, type Tensor } from '../../tensor/index.js';
import { inferParameters } from '../infer-parameters.js';
import { sharedMemoryParameters } from '../shared-memory.js';
import type { InferOptions } from '../types.js';

/**
 * A ModelInferRequest with every input in raw_input_contents (numeric tensors as views of their
 * typed arrays: the protobuf writer copies them once into the message, nothing else does).
 */
export function encodeGrpcInfer(model: string, inputs: readonly Tensor[], options: InferOptions): ModelInferRequestMsg {
  const n = inputs.length;
  const tensors = new Array<ModelInferRequestMsg['inputs'][number]>(n);
  const raw: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const t = inputs[i]!;
    const shm = options.inputSharedMemory?.[t.name];
    tensors[i] = { name: t.name, datatype: t.datatype, shape: t.shape as number[] };
    // raw_input_contents holds the inputs not in shared memory, in order.
    if (shm) tensors[i]!.parameters = parametersToProto(sharedMemoryParameters(shm));
    else raw.push(tensorToBytes(t));
  }
  const msg: ModelInferRequestMsg = { model_name: model, inputs: tensors, raw_input_contents: raw };
  if (options.version) msg.model_version = options.version;
  if (options.id !== undefined) msg.id = options.id;
  const params = inferParameters(options);
  if (params) msg.parameters = parametersToProto(params);
  if (options.outputs) {
    msg.outputs = options.outputs.map((o) => {
      const parameters: ParameterMap = o.classification === undefined ? {} : { classification: { int64_param: o.classification } };
      if (o.sharedMemory) Object.assign(parameters, parametersToProto(sharedMemoryParameters(o.sharedMemory)));
      return { name: o.name, parameters };
    });
  }
  return msg;
}
