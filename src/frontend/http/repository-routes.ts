/** The model repository extension: index, load (config override, `file:` contents), unload. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../errors.js';
import type { LoadOptions, Server } from '../../server/types.js';
import { jsonBody, parseJson } from './decode-http-infer.js';
import { sendError } from './send-error.js';

type Req = FastifyRequest<{ Params: { model: string; repo?: string } }>;

function object(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw Errors.badRequest(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

function parameters(body: Record<string, unknown>, what: string): Record<string, unknown> {
  return body.parameters === undefined ? {} : object(body.parameters, `${what} 'parameters'`);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Triton's load parameters: `config` (JSON text) and `file:<path>` (base64 contents). Only their
 * types are checked here; the repository checks the names (src/paths/) for HTTP and gRPC alike.
 */
export function loadOptions(model: string, params: Record<string, unknown>): LoadOptions {
  const out: LoadOptions = {};
  for (const [key, v] of Object.entries(params)) {
    if (key === 'config') {
      if (typeof v !== 'string') throw Errors.badRequest(`load '${model}': parameter 'config' must be a string of JSON model configuration`);
      object(parseJson(v, `load '${model}' parameter 'config'`), `load '${model}' parameter 'config'`);
      out.config = v;
    } else if (key.startsWith('file:')) {
      if (typeof v !== 'string' || !BASE64.test(v.replace(/\s/g, ''))) {
        throw Errors.badRequest(`load '${model}': file parameter ${JSON.stringify(key).slice(0, 300)} must be base64 text`);
      }
      // No prototype: 'file:__proto__' is a file name like any other.
      (out.files ??= Object.create(null) as Record<string, Uint8Array>)[key.slice(5)] = new Uint8Array(Buffer.from(v, 'base64'));
    }
  }
  if (out.files && out.config === undefined) {
    throw Errors.badRequest(`load '${model}': 'file:' parameters need a 'config' parameter too (as in Triton)`);
  }
  return out;
}

export function registerRepositoryRoutes(app: FastifyInstance, server: Server): void {
  const index = async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const body = object(jsonBody(req, 'repository index'), 'the repository index request');
      if (body.ready !== undefined && typeof body.ready !== 'boolean') throw Errors.badRequest(`repository index 'ready' must be a boolean`);
      const entries = await server.repositoryIndex(body.ready === undefined ? {} : { ready: body.ready });
      return reply.type('application/json').send(JSON.stringify(entries));
    } catch (e) {
      return sendError(reply, e);
    }
  };
  const load = async (req: Req, reply: FastifyReply) => {
    try {
      const { model } = req.params;
      const body = object(jsonBody(req, 'load request'), 'the load request');
      await server.loadModel(model, loadOptions(model, parameters(body, 'load')));
      return reply.code(200).send();
    } catch (e) {
      return sendError(reply, e);
    }
  };
  const unload = async (req: Req, reply: FastifyReply) => {
    try {
      const { model } = req.params;
      const params = parameters(object(jsonBody(req, 'unload request'), 'the unload request'), 'unload');
      const dep = params.unload_dependents;
      if (dep !== undefined && typeof dep !== 'boolean') throw Errors.badRequest(`unload '${model}': parameter 'unload_dependents' must be a boolean`);
      await server.unloadModel(model, { unloadDependents: dep === true });
      return reply.code(200).send();
    } catch (e) {
      return sendError(reply, e);
    }
  };
  app.post('/v2/repository/index', index);
  app.post('/v2/repository/:repo/index', index);
  app.post('/v2/repository/models/:model/load', load);
  app.post('/v2/repository/:repo/models/:model/load', load);
  app.post('/v2/repository/models/:model/unload', unload);
  app.post('/v2/repository/:repo/models/:model/unload', unload);
}
