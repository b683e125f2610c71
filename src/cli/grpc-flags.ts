import { Errors } from '../errors.js';
import { GRPC_DEFAULTS, serverCredentials, type GrpcServerOptions } from '../frontend/grpc/index.js';
import { HTTP_DEFAULTS } from '../frontend/http/index.js';
import type { Logger } from '../logger.js';
import { intFlag, tlsFlags } from './flags.js';

type FlagValues = Record<string, unknown>;

/** gRPC's message bound (a length is an int32 on the wire), tritonserver's fixed limit. */
const MAX_MESSAGE = 2 ** 31 - 1;


/**
 * The gRPC front end's size, connection and TLS flags. TLS takes tritonserver's flags and meanings:
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
  };
  const tls = tlsFlags(f, 'grpc', log, Errors.grpcTlsInvalid);
  if (!tls) return options;
  options.tls = tls;
  serverCredentials(options.tls); // a key that does not match its certificate fails here, not at the first client
  return options;
}
