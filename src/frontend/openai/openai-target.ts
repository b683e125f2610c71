/**
 * The model a request names, as the OpenAI front end serves it: ready, declaring the OpenAI API
 * (config parameter `openai`), for this endpoint. Anything else is answered as OpenAI does: 404
 * `model_not_found`, or 400 naming `model` for a model that serves other endpoints.
 */
import { openAiDeclaration, type OpenAiDeclaration, type OpenAiEndpoint } from '../../config/index.js';
import type { DataPlane } from '../../dataplane/index.js';
import { Errors, toTributaryError } from '../../errors.js';
import type { TensorMetadata } from '../../server/index.js';
import { withParam } from './openai-error.js';

export interface OpenAiTarget {
  model: string;
  decl: OpenAiDeclaration;
  /** The model's inputs by name (KServe metadata: the batch dim shows as -1). */
  inputs: ReadonlyMap<string, TensorMetadata>;
  /** Its responses come as a stream (a decoupled model, or a pipeline whose last step is one). */
  decoupled: boolean;
}

const LABELS: Record<OpenAiEndpoint, string> = { chat: 'chat completions', completions: 'completions', embeddings: 'embeddings' };

/** The declaration of a ready model, or undefined when it does not serve the OpenAI API. */
export function servedDeclaration(plane: DataPlane, model: string): OpenAiDeclaration | undefined {
  if (!plane.modelReady(model)) return undefined;
  try {
    return openAiDeclaration(plane.modelConfig(model));
  } catch {
    return undefined; // unloaded between the two calls
  }
}

export function openAiTarget(plane: DataPlane, model: string, endpoint: OpenAiEndpoint): OpenAiTarget {
  const notFound = (why: string) => withParam(Errors.openaiModelNotFound(model, why), 'model');
  let decl: OpenAiDeclaration | undefined;
  let inputs: TensorMetadata[];
  let decoupled: boolean;
  try {
    if (!plane.modelReady(model)) throw notFound('no model of that name is loaded and ready (GET /v1/models lists the models that serve the API)');
    decl = openAiDeclaration(plane.modelConfig(model));
    inputs = plane.modelMetadata(model).inputs;
    decoupled = plane.isDecoupled(model);
  } catch (e) {
    const t = toTributaryError(e);
    if (t.kind === 'NOT_FOUND' && !Errors.openaiModelNotFound.is(t)) throw notFound('no model of that name is loaded and ready (GET /v1/models lists the models that serve the API)');
    throw t;
  }
  if (!decl) throw notFound("its config has no parameter 'openai' (docs/openai.md says how a model declares it)");
  if (!decl.endpoints.has(endpoint)) {
    throw withParam(Errors.openaiEndpointUnsupported(model, LABELS[endpoint], [...decl.endpoints].map((e) => LABELS[e]).join(', ') || 'nothing'), 'model');
  }
  return { model, decl, inputs: new Map(inputs.map((i) => [i.name, i])), decoupled };
}
