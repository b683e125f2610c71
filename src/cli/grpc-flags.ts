import { Errors } from '../errors.js';
import { GRPC_DEFAULTS, serverCredentials, type GrpcKeepaliveOptions, type GrpcServerOptions } from '../frontend/grpc/index.js';
import { HTTP_DEFAULTS } from '../frontend/http/index.js';
import type { Logger } from '../logger.js';
import { boolFlag, intFlag, tlsFlags } from './flags.js';
import { compileHeaderPattern } from '../protocol/index.js';

type FlagValues = Record<string, unknown>;

/** gRPC's message bound (a length is an int32 on the wire), tritonserver's fixed limit. */
const MAX_MESSAGE = 2 ** 31 - 1;
/** A day: a longer connection timeout is a typo more likely than a wish (as --http-header-timeout-secs). */
const MAX_TIMEOUT_MS = 86_400_000;


/**
 * The gRPC front end's size, connection (bounds, handshake and idle timeouts) and TLS flags. TLS takes tritonserver's flags and meanings:
 * --grpc-use-ssl-mutual implies --grpc-use-ssl; the certificate files are read (and refused,
 * naming the flag) here, before any model loads.
 */
export function grpcOptionsFromFlags(f: FlagValues, log: Logger): Omit<GrpcServerOptions, 'port' | 'host'> {
  // tritonserver has no gRPC size flag (it fixes 2 GiB - 1). Ours follows --http-max-input-size
  // unless set, so a tensor that fits an HTTP body fits a gRPC message (which frames it in fewer bytes).
  const maxInputBytes = f['grpc-max-input-size'] !== undefined
    ? intFlag('grpc-max-input-size', f['grpc-max-input-size'], 0, 1, MAX_MESSAGE)
    : Math.min(MAX_MESSAGE, intFlag('http-max-input-size', f['http-max-input-size'], HTTP_DEFAULTS.maxInputSize, 1));
  const options: Omit<GrpcServerOptions, 'port' | 'host'> = {
    maxInputBytes,
    maxConnections: intFlag('grpc-max-connections', f['grpc-max-connections'], GRPC_DEFAULTS.maxConnections, 1),
    maxConcurrentStreams: intFlag('grpc-max-concurrent-streams', f['grpc-max-concurrent-streams'], GRPC_DEFAULTS.maxConcurrentStreams, 1, 2 ** 31 - 1),
    maxPendingConnections: intFlag('grpc-max-pending-connections', f['grpc-max-pending-connections'], GRPC_DEFAULTS.maxPendingConnections, 1),
    handshakeTimeoutMs: intFlag('grpc-handshake-timeout-ms', f['grpc-handshake-timeout-ms'], GRPC_DEFAULTS.handshakeTimeoutMs, 0, MAX_TIMEOUT_MS),
    idleTimeoutMs: intFlag('grpc-idle-timeout-ms', f['grpc-idle-timeout-ms'], GRPC_DEFAULTS.idleTimeoutMs, 0, MAX_TIMEOUT_MS),
    keepalive: keepaliveFromFlags(f),
  };
  if (f['grpc-header-forward-pattern'] !== undefined) {
    options.headerForwardPattern = compileHeaderPattern('grpc-header-forward-pattern', String(f['grpc-header-forward-pattern']));
  }
  const tls = tlsFlags(f, 'grpc', log, Errors.grpcTlsInvalid);
  if (!tls) return options;
  options.tls = tls;
  serverCredentials(options.tls); // a key that does not match its certificate fails here, not at the first client
  return options;
}

/** tritonserver's keepalive and connection-age flags, in milliseconds as it takes them; absent ones keep gRPC's defaults. */
function keepaliveFromFlags(f: FlagValues): GrpcKeepaliveOptions {
  const k: GrpcKeepaliveOptions = {};
  const ms = (flag: string) => (f[flag] === undefined ? undefined : intFlag(flag, f[flag], 0, 0, MAX_MESSAGE));
  const set = <K extends keyof GrpcKeepaliveOptions>(key: K, v: GrpcKeepaliveOptions[K] | undefined) => { if (v !== undefined) k[key] = v; };
  set('timeMs', ms('grpc-keepalive-time'));
  set('timeoutMs', ms('grpc-keepalive-timeout'));
  set('maxConnectionAgeMs', ms('grpc-max-connection-age'));
  set('maxConnectionAgeGraceMs', ms('grpc-max-connection-age-grace'));
  set('maxPingsWithoutData', ms('grpc-http2-max-pings-without-data'));
  set('minRecvPingIntervalWithoutDataMs', ms('grpc-http2-min-recv-ping-interval-without-data'));
  set('maxPingStrikes', ms('grpc-http2-max-ping-strikes'));
  if (f['grpc-keepalive-permit-without-calls'] !== undefined) {
    k.permitWithoutCalls = boolFlag('grpc-keepalive-permit-without-calls', f['grpc-keepalive-permit-without-calls'], false);
  }
  return k;
}
