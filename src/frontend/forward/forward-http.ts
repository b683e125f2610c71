/**
 * HTTP forwarding of a sequence request to the replica that owns it: the request goes as it came
 * (method, path, headers, body) to the owner's private loopback port, and the owner's answer comes
 * back as it was sent (status, headers, body bytes streamed; nothing decoded or re-encoded).
 */
import { Agent, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Errors, type TributaryError } from '../../errors.js';
import { wireMessageOf } from '../../protocol/index.js';
import type { SequenceOwners } from './sequence-owners.js';

/** Connecting to an owner that is down fails at once (ECONNREFUSED); this bounds one that does not accept. */
const CONNECT_TIMEOUT_MS = 5000;

/** Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection, not the message, so each side sets its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer']);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const k of Object.keys(headers)) if (!HOP_BY_HOP.has(k)) out[k] = headers[k];
  return out;
}

export interface HttpForwarder {
  /**
   * Relays `req` to replica `slot`. `body` is the body fastify already read (inflated when it was
   * compressed); without it the request stream is piped as it arrives.
   */
  forward(slot: number, key: string, req: IncomingMessage, res: ServerResponse, body?: Buffer): void;
  close(): void;
}

export function createHttpForwarder(owners: SequenceOwners): HttpForwarder {
  // Kept-alive sockets: a forwarded request costs one loopback round trip, not a TCP handshake too.
  const agent = new Agent({ keepAlive: true });
  const fail = (res: ServerResponse, e: TributaryError) => {
    if (res.headersSent) { res.destroy(); return; }
    const text = JSON.stringify({ error: wireMessageOf(e) });
    res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  return {
    forward(slot, key, req, res, body) {
      const port = owners.portsOf(slot)?.http;
      if (port === undefined) return fail(res, Errors.sequenceOwnerUnavailable(key, slot, 'it is down or being replaced'));
      const headers = endToEnd(req.headers);
      if (body) {
        delete headers['content-encoding'];
        headers['content-length'] = String(body.length);
      }
      const up = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent }, (answer) => {
        clearTimeout(timer);
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      const timer = setTimeout(() => up.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
      up.on('socket', (s) => { if (!s.connecting) clearTimeout(timer); else s.once('connect', () => clearTimeout(timer)); });
      up.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        fail(res, Errors.sequenceOwnerUnavailable(key, slot, e.code ?? e.message));
      });
      // The client went away: the owner's request is cancelled as a direct one would be.
      res.on('close', () => { if (!res.writableFinished) up.destroy(); });
      if (body) up.end(body);
      else req.pipe(up);
    },
    close: () => agent.destroy(),
  };
}
