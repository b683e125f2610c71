import type { BackendFactory } from '../backend/index.js';
import { createIdentityBackend } from '../../backends/identity/index.js';
import { createOnnxRuntimeBackend } from '../../backends/onnxruntime/index.js';
import { createTypeScriptBackend } from '../../backends/typescript/index.js';

/** The backends a server registers unless told otherwise (explicit setup, no import side effects). */
export function defaultBackends(): BackendFactory[] {
  return [createOnnxRuntimeBackend(), createTypeScriptBackend(), createIdentityBackend()];
}
