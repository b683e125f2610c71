/**
 * HTTPS for the HTTP front end, with the meanings of tritonserver's gRPC SSL flags applied to HTTP:
 * `--http-use-ssl` serves TLS with `--http-server-cert` / `--http-server-key`, and
 * `--http-use-ssl-mutual` also demands a client certificate signed by `--http-root-cert` (a client
 * without one, or with one from another CA, fails the handshake: no request of theirs is read).
 */
import type { ServerOptions as HttpsServerOptions } from 'node:https';
import type { Socket } from 'node:net';
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import { Errors } from '../../errors.js';
import { checkTlsMaterial, type TlsMaterial } from '../transport/index.js';
import { rawErrorResponse } from './client-error.js';

/** PEM contents, not file names (the CLI reads the files, naming the flag when one cannot be read). */
export type HttpTlsOptions = TlsMaterial;


/**
 * The `https` server options for `tls`, refusing at start what would otherwise only fail at the
 * first handshake (a key that does not match its certificate, PEM that does not parse). Messages
 * name the flags to fix and never quote the PEM, so a key given in the wrong flag stays secret.
 * `handshakeTimeoutMs` bounds a client that connects and never finishes the handshake.
 */
export function httpsServerOptions(tls: HttpTlsOptions, handshakeTimeoutMs: number): HttpsServerOptions {
  checkTlsMaterial(tls, 'http', Errors.httpTlsInvalid);
  const mutual = tls.mutual === true;
  return {
    cert: tls.cert,
    key: tls.key,
    ...(tls.rootCert ? { ca: tls.rootCert } : {}),
    requestCert: mutual,
    rejectUnauthorized: mutual,
    ...(handshakeTimeoutMs > 0 ? { handshakeTimeout: handshakeTimeoutMs } : {}),
  };
}

/**
 * Plain HTTP sent to the HTTPS port: OpenSSL recognizes a request line where a handshake should be
 * (ERR_SSL_HTTP_REQUEST), so the client gets a plain-text 400 saying to use https://, as nginx
 * does, on the TCP socket under the failed TLS one, rather than a bare reset. Any other handshake
 * failure (no or a stranger's client certificate, garbage, a handshake timeout) just closes.
 */
export function answerPlainHttp(server: TlsServer): void {
  server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: TLSSocket) => {
    const tcp = (socket as TLSSocket & { _parent?: Socket })._parent;
    if (err.code === 'ERR_SSL_HTTP_REQUEST' && tcp?.writable) tcp.end(rawErrorResponse(Errors.httpPlainToTls()));
    else socket.destroy();
  });
}
