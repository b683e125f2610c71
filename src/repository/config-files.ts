/**
 * The files a model config names besides the model file, each with the directory Triton reads it
 * from: label files in the model directory, implicit-state data in `initial_state/`, warmup
 * inputs in `warmup/`. Loading reads them through here (confined, src/paths/); `tributary
 * validate` checks the same names without reading.
 */
import type { ModelConfig } from '../config/index.js';
import { asLoadFailure, confineModelFile, readModelFile } from './model-paths.js';

export interface ConfigFileRef {
  kind: 'label' | 'state' | 'warmup';
  /** The output (labels), or the file name itself (state and warmup bytes are looked up by it). */
  key: string;
  file: string;
  /** Subdirectory of the model directory the file must be in (none: the model directory). */
  sub: 'initial_state' | 'warmup' | undefined;
  /** The field as messages name it, e.g. "output 'probs' label_filename". */
  field: string;
  where: string;
  /** The config path, for file:line:col. */
  path: string;
}

export function configFileRefs(config: ModelConfig): ConfigFileRef[] {
  const refs: ConfigFileRef[] = [];
  config.output.forEach((o, i) => {
    if (!o.label_filename) return;
    refs.push({
      kind: 'label', key: o.name, file: o.label_filename, sub: undefined, field: `output '${o.name}' label_filename`,
      where: 'the model directory', path: `output[${i}].label_filename`,
    });
  });
  (config.sequence_batching?.state ?? []).forEach((st, i) => st.initial_state.forEach((init, j) => {
    if (!init.data_file) return;
    refs.push({
      kind: 'state', key: init.data_file, file: init.data_file, sub: 'initial_state',
      field: `sequence_batching state '${st.input_name}' initial_state data_file`,
      where: 'initial_state/ of the model directory', path: `sequence_batching.state[${i}].initial_state[${j}].data_file`,
    });
  }));
  config.model_warmup.forEach((w, i) => {
    for (const [input, spec] of Object.entries(w.inputs)) {
      if (!spec.input_data_file) continue;
      refs.push({
        kind: 'warmup', key: spec.input_data_file, file: spec.input_data_file, sub: 'warmup',
        field: `model_warmup '${w.name}' input '${input}' input_data_file`,
        where: 'warmup/ of the model directory', path: `model_warmup[${i}]`,
      });
    }
  });
  return refs;
}

/** The real path of a referenced file, or the refusal as a load failure of `model`. */
export async function confineConfigFile(model: string, modelDir: string, ref: ConfigFileRef): Promise<string> {
  return confineModelFile(modelDir, ref.sub, ref.file, ref.field, ref.where).catch((e: unknown) => {
    throw asLoadFailure(model, e);
  });
}

export interface ConfigFiles {
  /** Label lines by output name. */
  labels: Map<string, string[]>;
  /** Implicit-state initial values by data_file name (what the sequence batcher looks up). */
  initialState: Record<string, Uint8Array>;
  /** Warmup input bytes by input_data_file name. */
  warmup: Map<string, Uint8Array>;
}

/** Read every file the config names, before any backend instance exists, so a refusal costs nothing. */
export async function readConfigFiles(model: string, modelDir: string, config: ModelConfig): Promise<ConfigFiles> {
  // No prototype: a data_file named "__proto__" is a file name like any other.
  const out: ConfigFiles = { labels: new Map(), initialState: Object.create(null) as Record<string, Uint8Array>, warmup: new Map() };
  for (const ref of configFileRefs(config)) {
    if (ref.kind === 'state' ? Object.hasOwn(out.initialState, ref.key) : ref.kind === 'warmup' && out.warmup.has(ref.key)) continue;
    const bytes = await readModelFile(model, await confineConfigFile(model, modelDir, ref), ref.field, ref.file, ref.where);
    if (ref.kind === 'label') {
      const text = new TextDecoder().decode(bytes);
      out.labels.set(ref.key, text.split(/\r?\n/).filter((l, i, a) => l !== '' || i < a.length - 1));
    } else if (ref.kind === 'state') {
      out.initialState[ref.key] = bytes;
    } else {
      out.warmup.set(ref.key, bytes);
    }
  }
  return out;
}
