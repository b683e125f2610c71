/**
 * `serve --replicas`: HTTP inference requests of a sequence another replica owns are relayed there
 * (src/frontend/forward/). A request with the routing header is relayed before fastify sees it,
 * its body piped as it arrives; one without it is relayed from the infer route once its body is
 * read and its sequence_id known. Installed only when the server has sequence owners: a single
 * server's request path is unchanged.
 */
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ROUTING_HEADER, routingKeyOf, sequenceKey, type HttpForwarder, type SequenceOwners } from '../forward/index.js';

export interface SequenceRouting { owners: SequenceOwners; forwarder: HttpForwarder }

const INFER_PATH = /^\/v2\/models\/[^?]+\/infer(?:\?|$)/;

/** Puts a check for the routing header in front of fastify's request handler. */
export function routeByHeader(server: HttpServer, { owners, forwarder }: SequenceRouting): void {
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const key = req.method === 'POST' ? routingKeyOf(req.headers[ROUTING_HEADER]) : undefined;
    const slot = key !== undefined && INFER_PATH.test(req.url ?? '') ? owners.ownerOf(key) : undefined;
    if (slot !== undefined) return forwarder.forward(slot, key!, req, res);
    for (const h of handlers) h.call(server, req, res);
  });
}

/**
 * From the infer route, for a request without the header: relays it when its sequence is another
 * replica's, and says so (the route then leaves the reply alone).
 */
export function forwardDecoded(routing: SequenceRouting, request: FastifyRequest, reply: FastifyReply, sequenceId: unknown): boolean {
  const key = sequenceKey(sequenceId);
  const slot = key === undefined ? undefined : routing.owners.ownerOf(key);
  if (slot === undefined) return false;
  reply.hijack();
  routing.forwarder.forward(slot, key!, request.raw, reply.raw, request.body as Buffer);
  return true;
}
