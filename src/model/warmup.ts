import { lastValueFrom, toArray } from 'rxjs';
import type { ModelConfig } from '../config/index.js';
import { Errors } from '../errors.js';
import {
  STORAGE, copyElements, createTensor, elementCount, fromConfigType, isBigIntArray, tensorFromBytes, type Tensor, type TypedArray,
} from '../tensor/index.js';
import type { Model } from './model.js';

/**
 * Run the config's model_warmup samples through the model before it is READY (Triton's
 * semantics: zero_data, random_data or input_data_file per input; `count` repetitions).
 * `inputFile` hands over the bytes of an `input_data_file`, which the loader has read (confined to
 * <model>/warmup/) before the model existed: model/ does no I/O.
 */
export async function runWarmup(model: Model, config: ModelConfig, inputFile: (file: string) => Uint8Array): Promise<void> {
  for (const w of config.model_warmup) {
    const batch = config.max_batch_size > 0 ? Math.max(1, w.batch_size || 1) : 0;
    const inputs: Tensor[] = [];
    for (const [name, spec] of Object.entries(w.inputs)) {
      const dt = fromConfigType(spec.data_type);
      if (!dt) throw Errors.modelLoadFailed(config.name, `warmup '${w.name}': input '${name}' has invalid data_type ${spec.data_type}`);
      const shape = batch ? [batch, ...spec.dims] : [...spec.dims];
      const n = elementCount(shape);
      if (spec.input_data_file) {
        const bytes = inputFile(spec.input_data_file);
        if (dt === 'BYTES') {
          inputs.push(createTensor(name, dt, shape, Array.from({ length: n }, () => bytes)));
        } else {
          const one = tensorFromBytes(name, dt, spec.dims, bytes.slice());
          const Ctor = STORAGE[dt];
          const data = new Ctor(n) as TypedArray;
          const row = one.data as TypedArray;
          for (let r = 0; r < Math.max(1, batch); r++) copyElements(data, row, r * row.length);
          inputs.push(createTensor(name, dt, shape, data));
        }
      } else if (dt === 'BYTES') {
        inputs.push(createTensor(name, dt, shape, Array.from({ length: n }, () => (spec.random_data ? String(Math.random()) : ''))));
      } else {
        const Ctor = STORAGE[dt];
        const data = new Ctor(n) as TypedArray;
        if (spec.random_data) {
          for (let i = 0; i < n; i++) {
            const v = dt === 'BOOL' ? Math.round(Math.random()) : Math.floor(Math.random() * 100);
            if (isBigIntArray(data)) data[i] = BigInt(v);
            else data[i] = v;
          }
        }
        inputs.push(createTensor(name, dt, shape, data));
      }
    }
    for (let c = 0; c < Math.max(1, w.count || 1); c++) {
      try {
        await lastValueFrom(model.infer({ model: config.name, inputs }).pipe(toArray()));
      } catch (e) {
        throw Errors.modelLoadFailed(config.name, `warmup '${w.name}' failed: ${(e as Error).message}`);
      }
    }
  }
}
