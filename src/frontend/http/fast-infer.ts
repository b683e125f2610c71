/**
 * The common unary /infer request, served on node's HTTP server without fastify's request
 * machinery: no route lookup with parameters, no Request/Reply objects, no hook chain
 * (preParsing, content-type parser, preValidation, preHandler, two onSend hooks) and no async
 * resource per request. It decodes, runs and answers exactly as the fastify route does (the same
 * body reader, decoder, edge, encoders and error table); only the framework around them is gone.
 * Measured with `npm run bench edge`: see docs/PERFORMANCE.md, "Cost per request at the edges".
 *
 * Anything out of the ordinary goes to fastify as before, decided from the request line and
 * headers alone, before a byte of the body is read: a percent-encoded or over-long name, a query
 * string, a compressed body, a client that accepts a compressed answer, an event stream, a
 * restricted inference category without the right header, a server closing, replicas relaying
 * sequences. Those keep every behaviour the route has (its errors, compression, SSE, refusals).
 */
import type { IncomingHttpHeaders, IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { Errors, toTributaryError } from '../../errors.js';
import type { DataPlane, Edge, OpenCall } from '../../dataplane/index.js';
import {
  HEADER_LENGTH, binaryChunks, binaryOutputSize, encodeInferResponseParts, frameBinary, httpStatusOf, wireMessageOf,
  type SharedMemoryAccess,
} from '../../protocol/index.js';
import { headerMatches } from '../restrict/index.js';
import type { RestrictionTable } from '../restrict/index.js';
import { decodeHttpInfer } from './decode-http-infer.js';
import { readBody } from './read-body.js';
import { RequestHeaders } from './request-headers.js';
import { answerOnce } from './respond-stream.js';
import { MAX_PARAM_LENGTH } from './send-error.js';

const PREFIX = '/v2/models/';
const SUFFIX = '/infer';
const VERSIONS = 'versions/';
/** Tensor bytes from which the answer is written as chunks (header, then each tensor's bytes), as the route does. */
const CHUNKED_MIN_BYTES = 64 * 1024;

export interface FastInferOptions {
  plane: DataPlane;
  edge: Edge;
  sharedMemory: SharedMemoryAccess | undefined;
  maxInputSize: number;
  restrictions: RestrictionTable;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** A path segment fastify would take: not empty, within the parameter bound. */
function segmentOk(url: string, from: number, to: number): boolean {
  return to > from && to - from <= MAX_PARAM_LENGTH;
}

/** Model and version of an ordinary infer path, or undefined for anything fastify should see. */
function inferTarget(url: string): { model: string; version: string | undefined } | undefined {
  if (!url.startsWith(PREFIX) || !url.endsWith(SUFFIX) || url.includes('%') || url.includes('?')) return undefined;
  // `<model>` or `<model>/versions/<version>` between the prefix and the suffix, read in place.
  const end = url.length - SUFFIX.length;
  const slash = url.indexOf('/', PREFIX.length);
  if (slash === -1 || slash >= end) return segmentOk(url, PREFIX.length, end) ? { model: url.slice(PREFIX.length, end), version: undefined } : undefined;
  // `versions/` after the first slash, and no further slash before the suffix's own.
  const at = slash + 1 + VERSIONS.length;
  if (!url.startsWith(VERSIONS, slash + 1) || at > end || url.indexOf('/', at) !== end) return undefined;
  if (!segmentOk(url, PREFIX.length, slash) || !segmentOk(url, at, end)) return undefined;
  return { model: url.slice(PREFIX.length, slash), version: url.slice(at, end) };
}

/**
 * A well-formed media type (RFC 9110: type/subtype, then `; name=value` parameters). /infer takes
 * any, or none, as the route does; a malformed one is the route's to refuse (415).
 */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\]*"))*\\s*$`);

/** The last content type found well-formed: a client sends the same one on every request. */
let lastMediaType = 'application/octet-stream';

function ordinary(headers: IncomingHttpHeaders, restrictions: RestrictionTable): boolean {
  const type = headers['content-type'];
  if (type !== undefined && type !== lastMediaType) {
    if (!MEDIA_TYPE.test(type)) return false;
    lastMediaType = type;
  }
  if (headers['content-encoding'] !== undefined) return false;
  const acceptEncoding = headers['accept-encoding'];
  if (acceptEncoding !== undefined && (acceptEncoding.includes('gzip') || acceptEncoding.includes('deflate'))) return false;
  const accept = headers.accept;
  if (accept !== undefined && accept.includes('text/event-stream')) return false;
  const restriction = restrictions.get('inference');
  return restriction === undefined || headerMatches(restriction, headers[restriction.key]);
}

/**
 * Put the lean path in front of the server's 'request' listeners (fastify's). Call it after every
 * other wrapper of those listeners that must see /infer first.
 */
export function serveInferDirectly(server: HttpServer, o: FastInferOptions): void {
  const handlers = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  const read = readBody(o.maxInputSize);
  const draining = () => o.plane.draining();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const target = req.method === 'POST' && server.listening ? inferTarget(req.url ?? '') : undefined;
    if (target === undefined || !ordinary(req.headers, o.restrictions)) {
      for (const h of handlers) h.call(server, req, res);
      return;
    }
    read({ headers: req.headers, raw: req }, req, (err, body) => {
      // A refused body was abandoned unread: the connection cannot carry another request.
      if (err) return answerError(res, err, () => true);
      let call: OpenCall;
      let encoding;
      try {
        const decoded = decodeHttpInfer({ body, headers: req.headers }, o.plane, target.model, target.version, o.sharedMemory);
        encoding = decoded.encoding;
        call = o.edge.open(decoded.request, new RequestHeaders(req.headers));
      } catch (e) {
        return answerError(res, e, draining);
      }
      const enc = encoding;
      answerOnce(res, target.model, call, (r) => {
        const out = encodeInferResponseParts(r, enc, o.sharedMemory);
        const headers: Record<string, string | number> = {};
        const tp = call.traceparent();
        if (tp) headers.traceparent = tp;
        if (draining()) headers.connection = 'close';
        if (out.binary === undefined) {
          const json = Buffer.from(out.json);
          headers['content-type'] = 'application/json; charset=utf-8';
          headers['content-length'] = json.byteLength;
          res.writeHead(200, headers).end(json);
        } else if (binaryOutputSize(out.binary) < CHUNKED_MIN_BYTES) {
          const framed = frameBinary(out.json, out.binary);
          headers[HEADER_LENGTH] = framed.headerLength;
          headers['content-type'] = 'application/octet-stream';
          headers['content-length'] = framed.body.byteLength;
          res.writeHead(200, headers).end(framed.body);
        } else {
          const { chunks, headerLength, byteLength } = binaryChunks(out.json, out.binary);
          headers[HEADER_LENGTH] = headerLength;
          headers['content-type'] = 'application/octet-stream';
          headers['content-length'] = byteLength;
          res.writeHead(200, headers);
          for (const c of chunks) res.write(c);
          res.end();
        }
      }, (e) => answerError(res, e, draining), () => Errors.tooManyResponses(target.model));
    });
  });
}

/** `{"error": "..."}` with the status from the one table, as the fastify route's error handler answers. */
function answerError(res: ServerResponse, error: unknown, draining: () => boolean): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const e = toTributaryError(error);
  const body = Buffer.from(JSON.stringify({ error: wireMessageOf(e) }));
  const headers: Record<string, string | number> = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.byteLength };
  if (draining()) headers.connection = 'close';
  res.writeHead(httpStatusOf(e), headers).end(body);
}
