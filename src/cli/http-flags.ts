import { Errors } from '../errors.js';
import { HTTP_DEFAULTS, httpsServerOptions, type HttpServerOptions } from '../frontend/http/index.js';
import type { Logger } from '../logger.js';
import { intFlag, tlsFlags } from './flags.js';
import { compileHeaderPattern } from '../protocol/index.js';

type FlagValues = Record<string, unknown>;

const MS = 1000;
/** A day: longer timeouts are a typo more likely than a wish (and node's timers stop at 2^31 ms). */
const MAX_TIMEOUT_SECS = 86_400;


/**
 * The HTTP front end's size, time, connection and TLS flags. TLS takes the meanings of
 * tritonserver's gRPC SSL flags: --http-use-ssl-mutual implies --http-use-ssl; the certificate files
 * are read (and refused, naming the flag) here, before any model loads.
 */
export function httpOptionsFromFlags(f: FlagValues, log: Logger): Omit<HttpServerOptions, 'port' | 'host'> {
  const secs = (flag: string, fallbackMs: number) => intFlag(flag, f[flag], fallbackMs / MS, 0, MAX_TIMEOUT_SECS) * MS;
  const options: Omit<HttpServerOptions, 'port' | 'host'> = {
    maxInputSize: intFlag('http-max-input-size', f['http-max-input-size'], HTTP_DEFAULTS.maxInputSize, 1),
    headerTimeoutMs: secs('http-header-timeout-secs', HTTP_DEFAULTS.headerTimeoutMs),
    requestTimeoutMs: secs('http-request-timeout-secs', HTTP_DEFAULTS.requestTimeoutMs),
    maxConnections: intFlag('http-max-connections', f['http-max-connections'], HTTP_DEFAULTS.maxConnections, 0),
    maxPendingConnections: intFlag('http-max-pending-connections', f['http-max-pending-connections'], HTTP_DEFAULTS.maxPendingConnections, 1),
  };
  if (f['http-header-forward-pattern'] !== undefined) {
    options.headerForwardPattern = compileHeaderPattern('http-header-forward-pattern', String(f['http-header-forward-pattern']));
  }
  const tls = tlsFlags(f, 'http', log, Errors.httpTlsInvalid);
  if (!tls) return options;
  options.tls = tls;
  httpsServerOptions(options.tls, 0); // a key that does not match its certificate fails here, not at the first client
  return options;
}
