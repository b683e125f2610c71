import type { MethodDefinition, PackageDefinition } from '@grpc/proto-loader';
import type { UntypedServiceImplementation } from '@grpc/grpc-js';

/** How one RPC is served: its shape, its codec, and the (grpc-js style) handler. */
export interface Route {
  name: string;
  kind: 'unary' | 'bidi' | 'unsupported';
  deserialize(payload: Buffer): unknown;
  serialize(message: unknown): Buffer;
  handler: (...args: never[]) => void;
}

export interface Codec { deserialize?(payload: Buffer): unknown; serialize?(message: unknown): Buffer }

/**
 * Routes by HTTP/2 `:path` (`/package.Service/Method`) for every method of the given services
 * that has a handler. Codecs come from the package definition (protobufjs) unless `codecs`
 * overrides them by method name (the hand-written ModelInfer* codecs).
 */
export function createRouteTable(
  pd: PackageDefinition,
  services: Record<string, UntypedServiceImplementation>,
  codecs: Record<string, Codec> = {},
): Map<string, Route> {
  const routes = new Map<string, Route>();
  for (const [service, impl] of Object.entries(services)) {
    const def = pd[service] as Record<string, MethodDefinition<unknown, unknown>> | undefined;
    if (!def) throw new Error(`service '${service}' is not in the loaded protos`);
    for (const [name, m] of Object.entries(def)) {
      const handler = impl[name];
      if (!handler) continue;
      const kind = !m.requestStream && !m.responseStream ? 'unary' : m.requestStream && m.responseStream ? 'bidi' : 'unsupported';
      routes.set(m.path, {
        name,
        kind,
        deserialize: codecs[name]?.deserialize ?? ((b: Buffer) => m.requestDeserialize(b)),
        serialize: codecs[name]?.serialize ?? ((v: unknown) => m.responseSerialize(v)),
        handler: handler as Route['handler'],
      });
    }
  }
  return routes;
}
