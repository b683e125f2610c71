import type { InferOptions } from './types.js';

/**
 * The header (HTTP) and metadata key (gRPC) that carries a request's routing key to a load
 * balancer, which hashes on it so every request of a sequence reaches the replica holding the
 * sequence's state (deploy/nginx/tributary.conf), and that `serve --replicas` routes on between its
 * replicas (a single server ignores it). Header names
 * are lower case in HTTP/2 and gRPC metadata, and `-` keeps it usable as nginx's
 * `$http_tributary_sequence_id`.
 */
export const ROUTING_HEADER = 'tributary-sequence-id';

/**
 * The routing key of a request: `options.routingKey` when given, else the sequence id, else none.
 * Requests without a key carry no header, so the balancer spreads them (stateless requests gain
 * nothing from sticking to one replica and would concentrate load). The value is percent-encoded
 * so that any string id is a legal header value; numeric ids and ordinary string ids are sent as
 * they are.
 */
function routingKey(options: InferOptions): string | undefined {
  const key = options.routingKey ?? (options.sequence === undefined ? undefined : String(options.sequence.id));
  return key === undefined ? undefined : encodeURIComponent(key);
}

/** The client option: the header's name (to match an existing balancer's configuration), or false to send none. */
export type RoutingHeaderOption = string | false;

/** `{ [header]: key }` for a request that has a routing key, else undefined. */
export function routingHeaders(header: RoutingHeaderOption | undefined, options: InferOptions): Record<string, string> | undefined {
  if (header === false) return undefined;
  const key = routingKey(options);
  return key === undefined ? undefined : { [(header ?? ROUTING_HEADER).toLowerCase()]: key };
}
