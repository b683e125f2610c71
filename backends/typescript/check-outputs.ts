import type { ModelConfig, ModelOutput } from '../../src/config/index.js';
import { Errors } from '../../src/errors.js';
import { formatShape, fromConfigType, shapeMatches, type Tensor } from '../../src/tensor/index.js';

/**
 * Checks a script's response against its config on the way out, as Triton's backends are held to
 * the model configuration: every output declared, once, with the declared datatype and a shape
 * matching its dims (or its reshape) behind the request's batch dimension when max_batch_size > 0.
 * A non-decoupled response must carry outputs, and each output the client asked for by name.
 * The script is not trusted to agree with its config: a mismatch is the script's bug (INTERNAL),
 * reported with the script, the output and what was expected, instead of reaching the client.
 */
export type OutputCheck = (outputs: readonly Tensor[], where: string, batchSize: number, requested: readonly string[] | undefined, decoupled: boolean) => void;

export function outputCheck(config: ModelConfig, script: string): OutputCheck {
  const model = config.name;
  const specs = new Map<string, Pick<ModelOutput, 'data_type' | 'dims' | 'reshape'>>(config.output.map((o) => [o.name, o]));
  // Implicit state (sequence_batching.state) is an output too: the sequence batcher keeps it for
  // the next request of the sequence, so a script must be able to send it undeclared in `output`.
  for (const st of config.sequence_batching?.state ?? []) {
    if (!specs.has(st.output_name)) specs.set(st.output_name, { data_type: st.data_type, dims: st.dims });
  }
  const declared = [...specs.keys()].map((n) => `'${n}'`).join(', ') || 'none';
  const batching = config.max_batch_size > 0;
  const fail = (where: string, msg: string) => Errors.scriptOutputInvalid(model, script, where, msg);
  return (outputs, where, batchSize, requested, decoupled) => {
    if (outputs.length === 0) {
      if (decoupled) return;
      throw fail(where, `the response has no outputs; return the outputs the config declares (${declared})`);
    }
    for (let i = 0; i < outputs.length; i++) {
      const t = outputs[i]!;
      const spec = specs.get(t.name);
      if (!spec) throw fail(where, `output '${t.name}' is not declared in the config (declared: ${declared})`);
      for (let k = 0; k < i; k++) if (outputs[k]!.name === t.name) throw fail(where, `output '${t.name}' is sent twice; send each output once`);
      const dt = fromConfigType(spec.data_type);
      if (dt !== t.datatype) throw fail(where, `output '${t.name}' is ${t.datatype}, the config declares ${dt ?? spec.data_type}`);
      const dims = batching ? [batchSize, ...spec.dims] : spec.dims;
      const alt = spec.reshape ? (batching ? [batchSize, ...spec.reshape.shape] : spec.reshape.shape) : undefined;
      if (!shapeMatches(dims, t.shape) && !(alt && shapeMatches(alt, t.shape))) {
        const rows = batching ? ` (batch dimension ${batchSize}: the request's batch size, as max_batch_size is ${config.max_batch_size})` : '';
        throw fail(where, `output '${t.name}' has shape ${formatShape(t.shape)}, the config expects ${formatShape(dims)}${rows}`);
      }
    }
    if (requested && !decoupled) {
      for (const name of requested) {
        if (!outputs.some((t) => t.name === name)) throw fail(where, `requested output '${name}' is missing from the response`);
      }
    }
  };
}
