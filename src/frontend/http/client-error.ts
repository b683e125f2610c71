/**
 * node's own HTTP parser refusals (the server's 'clientError' event: a malformed request line or
 * header, headers past the size limit, a request that did not arrive in time) answered in the v2
 * error shape like every other client error, instead of node's bodiless or fastify's own-shaped
 * ones. The connection is then closed: the parser cannot find the next request after an error.
 * A CONNECT request, which node would drop without a word, gets the same treatment.
 */
import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import { Errors, type TributaryError } from '../../errors.js';
import { httpStatusOf, wireMessageOf } from '../../protocol/index.js';

export interface ClientErrorLimits {
  headerTimeoutMs: number;
  requestTimeoutMs: number;
  /** The parser's header limit (node's --max-http-header-size, 16 KiB by default). */
  maxHeaderSize?: number;
}

type ParserError = Error & { code?: string; reason?: string };

/** The response node is writing on this socket, once a request's headers have been parsed. */
function pendingResponse(socket: Duplex): { headersSent: boolean } | null | undefined {
  return (socket as Duplex & { _httpMessage?: { headersSent: boolean } | null })._httpMessage;
}

function toCatalogError(err: ParserError, headersDone: boolean, limits: ClientErrorLimits): TributaryError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return headersDone
        ? Errors.httpTimeout('body', limits.requestTimeoutMs / 1000, '--http-request-timeout-secs')
        : Errors.httpTimeout('line and headers', limits.headerTimeoutMs / 1000, '--http-header-timeout-secs');
    case 'HPE_HEADER_OVERFLOW':
      return Errors.httpHeadersTooLarge(limits.maxHeaderSize ?? maxHeaderSize);
    default:
      // llhttp's reason ("Invalid method encountered") without node's "Parse Error: " prefix.
      return Errors.httpMalformed(err.reason ?? err.message.replace(/^Parse Error: /, ''));
  }
}

/** A complete HTTP/1.1 error response with a `{"error": ...}` body, closing the connection. */
export function rawErrorResponse(error: TributaryError): string {
  const status = httpStatusOf(error);
  const body = JSON.stringify({ error: wireMessageOf(error) });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** CONNECT (a proxy tunnel request): node would close the connection without a word. */
export function refuseConnect(_request: unknown, socket: Duplex): void {
  socket.end(rawErrorResponse(Errors.httpMalformed('CONNECT is not served here: this is an inference server, not a proxy')));
}

/** The 'clientError' listener (fastify's `clientErrorHandler`). */
export function clientErrorHandler(limits: ClientErrorLimits) {
  return (err: ParserError, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const pending = pendingResponse(socket);
    // As node does: answer only when no response of ours has started on this socket.
    if (socket.writable && !pending?.headersSent) {
      socket.write(rawErrorResponse(toCatalogError(err, pending != null, limits)));
    }
    socket.destroy();
  };
}
