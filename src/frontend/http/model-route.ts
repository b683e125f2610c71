import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { emptyJsonBody, type JsonRouteConfig } from './json-body.js';
import { modelParams } from './route-schemas.js';

export interface ModelParams { model: string; version?: string }

type Handler = (request: FastifyRequest<{ Params: ModelParams }>, reply: FastifyReply) => unknown;

export interface RouteExtras {
  schema?: Omit<FastifySchema, 'params'>;
  /** Name of a JSON body (json-body.ts); absent, the body stays a Buffer. */
  jsonBody?: string;
}

/** Route options for the schema and JSON body of `extras`. */
export function routeExtras(extras: RouteExtras, params?: object) {
  const config: JsonRouteConfig = extras.jsonBody === undefined ? {} : { jsonBody: extras.jsonBody };
  return {
    schema: { ...(params ? { params } : {}), ...extras.schema },
    config,
    ...(extras.jsonBody === undefined ? {} : { preValidation: emptyJsonBody }),
  };
}

/** Register `/v2/models/:model<suffix>` and `/v2/models/:model/versions/:version<suffix>`. */
export function modelRoute(app: FastifyInstance, method: 'GET' | 'POST', suffix: string, handler: Handler, extras: RouteExtras = {}): void {
  const options = routeExtras(extras, modelParams);
  app.route({ method, url: `/v2/models/:model${suffix}`, handler, ...options });
  app.route({ method, url: `/v2/models/:model/versions/:version${suffix}`, handler, ...options });
}
