import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { DataPlane } from '../../dataplane/index.js';
import type { ModelRepositoryParameterMsg } from '../../protocol/grpc/index.js';
import { unary } from './unary.js';
import { repositoryParameters } from './wire-values.js';

interface ModelRequest { repository_name: string; model_name: string; parameters?: Record<string, ModelRepositoryParameterMsg> }

/** The model repository extension, through the data plane (which reads the load parameters). */
export function repositoryHandlers(plane: DataPlane): UntypedServiceImplementation {
  return {
    RepositoryIndex: unary(async (r: { ready: boolean }) => ({ models: await plane.repositoryIndex({ ready: r.ready }) })),
    RepositoryModelLoad: unary(async (r: ModelRequest) => {
      await plane.load(r.model_name, repositoryParameters(r.parameters));
      return {};
    }),
    RepositoryModelUnload: unary(async (r: ModelRequest) => {
      await plane.unload(r.model_name, repositoryParameters(r.parameters));
      return {};
    }),
  };
}
