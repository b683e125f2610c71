import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import type { TributaryError } from '../../errors.js';

/** A server's TLS material as PEM contents (the CLI reads the files, naming the flag on failure). */
export interface TlsMaterial {
  /** The server's certificate chain (--<front end>-server-cert). */
  cert: Buffer;
  /** The server's private key (--<front end>-server-key). */
  key: Buffer;
  /** CA certificates that client certificates must chain to (--<front end>-root-cert); needed with `mutual`. */
  rootCert?: Buffer;
  /** Require a client certificate signed by `rootCert` (--<front end>-use-ssl-mutual). */
  mutual?: boolean;
}

/** OpenSSL's reason without its hex prefix ("key values mismatch", "no start line"). */
function tlsReason(e: unknown): string {
  const m = (e as Error).message ?? String(e);
  return m.replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/i, '').trim() || m;
}

/**
 * Refuse at start what would otherwise only fail at the first handshake: mutual TLS without a root
 * certificate, a key that does not match its certificate, PEM that does not parse. `flag` is the
 * flags' prefix ('http' or 'grpc') so messages name the flags to fix; they never quote the PEM, so
 * a key given in the wrong flag stays secret. Both front ends use this one check.
 */
export function checkTlsMaterial(tls: TlsMaterial, flag: 'http' | 'grpc', fail: (msg: string) => TributaryError): void {
  if (tls.mutual && !tls.rootCert) {
    throw fail(`--${flag}-use-ssl-mutual needs --${flag}-root-cert: the CA certificate that client certificates must be signed by`);
  }
  try {
    createSecureContext({ cert: tls.cert, key: tls.key });
  } catch (e) {
    throw fail(`the server certificate (--${flag}-server-cert) and key (--${flag}-server-key) are not a usable PEM pair: ${tlsReason(e)}`);
  }
  if (tls.rootCert) {
    try {
      // OpenSSL takes text without any certificate as an empty CA list; parsing the first one does not.
      new X509Certificate(tls.rootCert);
      createSecureContext({ ca: tls.rootCert });
    } catch (e) {
      throw fail(`the root certificate (--${flag}-root-cert) is not usable PEM: ${tlsReason(e)}`);
    }
  }
}
