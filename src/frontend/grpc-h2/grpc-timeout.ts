const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };

/**
 * The `grpc-timeout` header ("TimeoutValue TimeoutUnit": at most 8 digits, then one of H M S m u n,
 * per https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md) in milliseconds.
 * Undefined when the header is absent; null when it is malformed.
 */
export function parseGrpcTimeout(header: string | string[] | undefined): number | undefined | null {
  if (header === undefined) return undefined;
  const m = /^(\d{1,8})([HMSmun])$/.exec(Array.isArray(header) ? header[0] ?? '' : header);
  if (!m) return null;
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}
