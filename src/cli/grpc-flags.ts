import { Errors } from '../errors.js';
import { GRPC_DEFAULTS, serverCredentials, type GrpcServerOptions } from '../frontend/grpc/index.js';
import { HTTP_DEFAULTS } from '../frontend/http/index.js';
import type { Logger } from '../logger.js';
import { boolFlag, intFlag, pemFlag } from './flags.js';

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
  const mutual = boolFlag('grpc-use-ssl-mutual', f['grpc-use-ssl-mutual'], false);
  const ssl = mutual || boolFlag('grpc-use-ssl', f['grpc-use-ssl'], false);
  const files = ['grpc-server-cert', 'grpc-server-key', 'grpc-root-cert'].filter((k) => f[k] !== undefined);
  if (!ssl) {
    if (files.length > 0) log.warn(`${files.map((k) => `--${k}`).join(', ')} ignored: gRPC serves plain text unless --grpc-use-ssl=true or --grpc-use-ssl-mutual=true`);
    return options;
  }
  for (const flag of ['grpc-server-cert', 'grpc-server-key', ...(mutual ? ['grpc-root-cert'] : [])]) {
    if (f[flag] === undefined) throw Errors.grpcTlsInvalid(`--${mutual ? 'grpc-use-ssl-mutual' : 'grpc-use-ssl'}=true needs --${flag}`);
  }
  options.tls = {
    cert: pemFlag(Errors.grpcTlsInvalid, 'grpc-server-cert', f['grpc-server-cert']),
    key: pemFlag(Errors.grpcTlsInvalid, 'grpc-server-key', f['grpc-server-key']),
    ...(f['grpc-root-cert'] === undefined ? {} : { rootCert: pemFlag(Errors.grpcTlsInvalid, 'grpc-root-cert', f['grpc-root-cert']) }),
    mutual,
  };
  serverCredentials(options.tls); // a key that does not match its certificate fails here, not at the first client
  return options;
}
