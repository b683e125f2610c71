import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { Errors } from '../../errors.js';
import type { ModelRepositoryParameterMsg } from '../../protocol/grpc/index.js';
import type { LoadOptions, Server } from '../../server/types.js';
import { unary } from './unary.js';

interface ModelRequest { repository_name: string; model_name: string; parameters?: Record<string, ModelRepositoryParameterMsg> }

/**
 * Load overrides: `config` (JSON text) and `file:<path>` (bytes), as Triton's load API takes them.
 * Only their types are checked here; the repository checks the names (src/paths/).
 */
function loadOptions(r: ModelRequest): LoadOptions {
  const out: LoadOptions = {};
  for (const [key, p] of Object.entries(r.parameters ?? {})) {
    if (key === 'config') {
      if (p.parameter_choice !== 'string_param') throw Errors.badRequest(`load of '${r.model_name}': parameter 'config' must be a string_param holding the JSON model configuration`);
      out.config = p.string_param!;
    } else if (key.startsWith('file:')) {
      if (p.parameter_choice !== 'bytes_param') throw Errors.badRequest(`load of '${r.model_name}': parameter ${JSON.stringify(key).slice(0, 300)} must be a bytes_param`);
      // No prototype: 'file:__proto__' is a file name like any other.
      (out.files ??= Object.create(null) as Record<string, Uint8Array>)[key.slice(5)] = p.bytes_param!;
    }
  }
  if (out.files && out.config === undefined) {
    throw Errors.badRequest(`load of '${r.model_name}': 'file:' parameters need a 'config' parameter with the model configuration`);
  }
  return out;
}

export function repositoryHandlers(server: Server): UntypedServiceImplementation {
  return {
    RepositoryIndex: unary(async (r: { ready: boolean }) => ({ models: await server.repositoryIndex({ ready: r.ready }) })),
    RepositoryModelLoad: unary(async (r: ModelRequest) => {
      await server.loadModel(r.model_name, loadOptions(r));
      return {};
    }),
    RepositoryModelUnload: unary(async (r: ModelRequest) => {
      const p = r.parameters?.unload_dependents;
      await server.unloadModel(r.model_name, { unloadDependents: p?.parameter_choice === 'bool_param' && p.bool_param === true });
      return {};
    }),
  };
}
