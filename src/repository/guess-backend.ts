import { readdir } from 'node:fs/promises';
import { Errors } from '../errors.js';

interface GuessedBackend {
  backend: string;
  platform: string;
  /** Set when the guess also names the model file (a custom backend's `model.<backend>`). */
  defaultModelFilename?: string;
}

/**
 * Triton's model files and the backend each one means (core AutoCompleteBackendFields), in its
 * order, then this server's own: a backend that is not built in (pytorch, tensorrt, ...) is then
 * refused by name at load rather than guessed as something else. `dir` says whether the entry
 * must be a directory (true), a file (false) or may be either (an ONNX model with external data).
 */
const MODEL_FILES: ReadonlyArray<{ file: string; backend: string; platform: string; dir?: boolean }> = [
  { file: 'model.savedmodel', backend: 'tensorflow', platform: 'tensorflow_savedmodel', dir: true },
  { file: 'model.graphdef', backend: 'tensorflow', platform: 'tensorflow_graphdef', dir: false },
  { file: 'model.plan', backend: 'tensorrt', platform: 'tensorrt_plan', dir: false },
  { file: 'model.onnx', backend: 'onnxruntime', platform: 'onnxruntime_onnx' },
  { file: 'model.xml', backend: 'openvino', platform: '' },
  { file: 'model.pt', backend: 'pytorch', platform: 'pytorch_libtorch', dir: false },
  { file: 'model.py', backend: 'python', platform: '' },
  { file: 'model.ts', backend: 'typescript', platform: '' },
  { file: 'model.js', backend: 'typescript', platform: '' },
];

/**
 * The backend of a model whose config names neither backend nor platform, as Triton's core
 * decides it: from `default_model_filename` when the config gives one, else from the files in
 * the version directory, else (custom backends) from a model name of the form
 * `<name>.<backend>`, whose model file is then `model.<backend>`. Undefined when the config names
 * a model file none of these explains.
 */
export async function guessBackend(model: string, defaultModelFilename: string, versionDir: string): Promise<GuessedBackend | undefined> {
  if (defaultModelFilename) {
    const known = MODEL_FILES.find((m) => m.file === defaultModelFilename);
    return known && { backend: known.backend, platform: known.platform };
  }
  const entries = await readdir(versionDir, { withFileTypes: true }).catch(() => []);
  const kinds = new Map(entries.map((e) => [e.name, e.isDirectory()]));
  for (const m of MODEL_FILES) {
    const isDir = kinds.get(m.file);
    if (isDir !== undefined && (m.dir === undefined || m.dir === isDir)) return { backend: m.backend, platform: m.platform };
  }
  const dot = model.indexOf('.');
  if (dot < 0 || dot === model.length - 1) {
    throw Errors.modelLoadFailed(model, `Invalid model name: Could not determine backend for model '${model}' with no backend in model configuration. Expected model name of the form 'model.<backend_name>'. (No ${MODEL_FILES.map((m) => m.file).join(', ')} in the version directory either.)`);
  }
  const backend = model.slice(dot + 1);
  return { backend, platform: '', defaultModelFilename: `model.${backend}` };
}
