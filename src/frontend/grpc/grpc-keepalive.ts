import type { ChannelOptions } from '@grpc/grpc-js';
import type { Logger } from '../../logger.js';

/**
 * tritonserver's gRPC keepalive and connection-age settings (--grpc-keepalive-*, --grpc-http2-*,
 * --grpc-max-connection-age[-grace]); all times in milliseconds, as its flags take them.
 */
export interface GrpcKeepaliveOptions {
  /** Ping a connection after this long without activity; default 7200000 (gRPC core's server default). */
  timeMs?: number;
  /** Close the connection when a ping is not answered within this; default 20000. */
  timeoutMs?: number;
  /** Close a connection this old (after a GOAWAY and the grace); default: never. */
  maxConnectionAgeMs?: number;
  /** Time the calls of a connection past its age get to finish; default: unbounded. */
  maxConnectionAgeGraceMs?: number;
  // gRPC core's ping-strike policy. grpc-js (and node's HTTP/2) answers every client ping and never
  // counts strikes, so these are accepted and reported, not applied.
  permitWithoutCalls?: boolean;
  maxPingsWithoutData?: number;
  minRecvPingIntervalWithoutDataMs?: number;
  maxPingStrikes?: number;
}

/** gRPC core's server defaults, which tritonserver keeps. */
const KEEPALIVE_DEFAULTS = Object.freeze({ timeMs: 7_200_000, timeoutMs: 20_000 });

const NOT_APPLIED: readonly (readonly [keyof GrpcKeepaliveOptions, string])[] = [
  ['permitWithoutCalls', '--grpc-keepalive-permit-without-calls'],
  ['maxPingsWithoutData', '--grpc-http2-max-pings-without-data'],
  ['minRecvPingIntervalWithoutDataMs', '--grpc-http2-min-recv-ping-interval-without-data'],
  ['maxPingStrikes', '--grpc-http2-max-ping-strikes'],
];

/** The grpc-js server options for `k`; a setting grpc-js cannot apply is logged once, naming its flag. */
export function keepaliveChannelOptions(k: GrpcKeepaliveOptions, log: Logger): ChannelOptions {
  const given = NOT_APPLIED.filter(([key]) => k[key] !== undefined).map(([, flag]) => flag);
  if (given.length > 0) {
    log.warn(`${given.join(', ')} accepted but not applied: the gRPC server (grpc-js) answers every client ping and has no ping-strike policy, as tritonserver with --grpc-http2-max-ping-strikes=0`);
  }
  return {
    'grpc.keepalive_time_ms': k.timeMs ?? KEEPALIVE_DEFAULTS.timeMs,
    'grpc.keepalive_timeout_ms': k.timeoutMs ?? KEEPALIVE_DEFAULTS.timeoutMs,
    ...(k.maxConnectionAgeMs === undefined ? {} : { 'grpc.max_connection_age_ms': k.maxConnectionAgeMs }),
    ...(k.maxConnectionAgeGraceMs === undefined ? {} : { 'grpc.max_connection_age_grace_ms': k.maxConnectionAgeGraceMs }),
  };
}
