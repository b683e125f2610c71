import { createSecureContext } from 'node:tls';
import { ServerCredentials } from '@grpc/grpc-js';
import { Errors } from '../../errors.js';

/** TLS for the gRPC front end, with tritonserver's meanings (PEM contents, not file names). */
export interface GrpcTlsOptions {
  /** The server's certificate chain (--grpc-server-cert). */
  cert: Buffer;
  /** The server's private key (--grpc-server-key). */
  key: Buffer;
  /** CA certificates that client certificates must chain to (--grpc-root-cert); needed with `mutual`. */
  rootCert?: Buffer;
  /** Require a client certificate signed by `rootCert` (--grpc-use-ssl-mutual). */
  mutual?: boolean;
}

/**
 * Insecure credentials without `tls`; otherwise TLS, refusing at start what would only fail at the
 * first handshake (a key that does not match the certificate, PEM that does not parse) with the
 * flags to fix. The PEM contents never appear in a message: a key put in the wrong flag stays secret.
 */
export function serverCredentials(tls: GrpcTlsOptions | undefined): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  if (tls.mutual && !tls.rootCert) {
    throw Errors.grpcTlsInvalid('--grpc-use-ssl-mutual needs --grpc-root-cert: the CA certificate that client certificates must be signed by');
  }
  try {
    createSecureContext({ cert: tls.cert, key: tls.key });
  } catch (e) {
    throw Errors.grpcTlsInvalid(`the server certificate (--grpc-server-cert) and key (--grpc-server-key) are not a usable PEM pair: ${reason(e)}`);
  }
  if (tls.rootCert) {
    try {
      createSecureContext({ ca: tls.rootCert });
    } catch (e) {
      throw Errors.grpcTlsInvalid(`the root certificate (--grpc-root-cert) is not usable PEM: ${reason(e)}`);
    }
  }
  return ServerCredentials.createSsl(tls.rootCert ?? null, [{ cert_chain: tls.cert, private_key: tls.key }], tls.mutual === true);
}

/** OpenSSL's reason without its hex prefix ("key values mismatch", "no start line"). */
function reason(e: unknown): string {
  const m = (e as Error).message ?? String(e);
  return m.replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/i, '').trim() || m;
}
