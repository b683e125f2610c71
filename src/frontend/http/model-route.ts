import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface ModelParams { model: string; version?: string }

type Handler = (request: FastifyRequest<{ Params: ModelParams }>, reply: FastifyReply) => unknown;

/** Register `/v2/models/:model<suffix>` and `/v2/models/:model/versions/:version<suffix>`. */
export function modelRoute(app: FastifyInstance, method: 'GET' | 'POST', suffix: string, handler: Handler): void {
  app.route({ method, url: `/v2/models/:model${suffix}`, handler });
  app.route({ method, url: `/v2/models/:model/versions/:version${suffix}`, handler });
}
