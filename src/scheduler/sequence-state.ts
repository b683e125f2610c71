import type { ModelConfig } from '../config/index.js';
import { Errors } from '../errors.js';
import { createTensor, elementCount, fromConfigType, renameTensor, tensorFromBytes, type DataType, type Tensor, type TypedArray } from '../tensor/index.js';

/** One implicit state of a sequence model, compiled at load. */
export interface StateSpec {
  readonly inputName: string;
  readonly outputName: string;
  /** The state a sequence starts with (one row when the model batches). */
  readonly initial: Tensor;
  /** True when the config lists the output state, so clients may receive it. */
  readonly listedOutput: boolean;
}

/**
 * Compile `sequence_batching.state`. The initial state is `initial_state` (zeros, or the bytes of
 * its data_file handed in by the caller), else zeros with every variable dimension taken as 1 —
 * Triton leaves that first state uninitialized; zeros make it deterministic.
 */
export function compileStates(config: ModelConfig, model: string, files: Readonly<Record<string, Uint8Array>>): StateSpec[] {
  const problems: string[] = [];
  const out: StateSpec[] = [];
  const batched = config.max_batch_size > 0;
  const outputs = new Set(config.output.map((o) => o.name));
  for (const s of config.sequence_batching?.state ?? []) {
    const where = `model '${model}': sequence_batching state '${s.input_name}'`;
    const dt = fromConfigType(s.data_type);
    if (!dt) {
      problems.push(`${where}: invalid data_type ${s.data_type}`);
      continue;
    }
    const init = s.initial_state?.[0];
    const dims = (init?.dims?.length ? init.dims : s.dims).map((d) => (d < 0 ? 1 : d));
    const shape = batched ? [1, ...dims] : dims;
    let initial: Tensor;
    try {
      if (init?.data_file) {
        const bytes = files[init.data_file];
        if (!bytes) throw Errors.configInvalid(`initial_state data_file '${init.data_file}' was not provided (expected in initial_state/ of the model directory)`);
        initial = tensorFromBytes(s.input_name, dt, shape, bytes);
      } else initial = zeros(s.input_name, dt, shape);
    } catch (e) {
      problems.push(`${where}: ${(e as Error).message}`);
      continue;
    }
    out.push({ inputName: s.input_name, outputName: s.output_name, initial, listedOutput: outputs.has(s.output_name) });
  }
  if (problems.length) throw Errors.configInvalid(problems.join('\n'));
  return out;
}

function zeros(name: string, dt: DataType, shape: number[]): Tensor {
  const n = elementCount(shape);
  return createTensor(name, dt, shape, dt === 'BYTES' ? new Array<string>(n).fill('') : dt === 'INT64' || dt === 'UINT64' ? new Array<bigint>(n).fill(0n) : new Array<number>(n).fill(0));
}

/** A state output kept for the next request: copied, since backends may reuse output buffers. */
export function keepState(output: Tensor, inputName: string): Tensor {
  const data = output.datatype === 'BYTES' ? (output.data as readonly Uint8Array[]).map((b) => b.slice()) : (output.data as TypedArray).slice();
  return renameTensor({ name: output.name, datatype: output.datatype, shape: [...output.shape], data }, inputName);
}
