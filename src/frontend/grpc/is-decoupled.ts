import type { Server } from '../../server/types.js';

/** Whether a model answers with a stream of responses. Throws the server's NOT_FOUND/UNAVAILABLE. */
export function isDecoupled(server: Server, model: string, version: string | undefined): boolean {
  return server.modelConfig(model, version).model_transaction_policy?.decoupled === true;
}
