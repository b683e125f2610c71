import type { ModelConfig } from '../config/index.js';
import { fromConfigType, type DataType } from '../tensor/index.js';

export interface TensorMetadata { name: string; datatype: DataType; shape: number[] }

/** KServe v2 model metadata (variable dims = -1; batch dim included as -1 when max_batch_size > 0). */
export interface ModelMetadata {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
}

/** KServe v2 metadata: the batch dimension shows as -1 when max_batch_size > 0. */
export function modelMetadata(config: ModelConfig, versions: string[]): ModelMetadata {
  const batch = config.max_batch_size > 0;
  const tensor = (t: { name: string; data_type: string; dims: number[] }): TensorMetadata => ({
    name: t.name,
    datatype: fromConfigType(t.data_type) ?? 'BYTES',
    shape: batch ? [-1, ...t.dims] : [...t.dims],
  });
  return {
    name: config.name,
    versions,
    platform: config.platform || config.backend,
    inputs: config.input.map(tensor),
    outputs: config.output.map(tensor),
  };
}
