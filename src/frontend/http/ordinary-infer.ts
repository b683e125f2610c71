/**
 * Which /infer requests are ordinary: served without fastify's request machinery, by the lean
 * listener on node's HTTP server (fast-infer.ts) or by the socket lane (infer-lane.ts). Decided
 * from the request line and headers alone, before a byte of the body is read. Anything out of the
 * ordinary goes to fastify's route, which keeps every behaviour it has (its errors, compression,
 * SSE, refusals): a percent-encoded or over-long name, a query string, a compressed body, a client
 * that accepts a compressed answer, an event stream, a restricted inference category without the
 * right header. (The socket lane compresses as the route does: a compressed answer is no reason there.)
 */
import type { IncomingHttpHeaders } from 'node:http';
import { headerMatches, type RestrictionTable } from '../restrict/index.js';
import { MAX_PARAM_LENGTH } from './send-error.js';

const PREFIX = '/v2/models/';
const SUFFIX = '/infer';
const VERSIONS = 'versions/';

export interface InferTarget {
  model: string;
  version: string | undefined;
}

/** A path segment fastify would take: not empty, within the parameter bound. */
function segmentOk(from: number, to: number): boolean {
  return to > from && to - from <= MAX_PARAM_LENGTH;
}

/** Model and version of an ordinary infer path, or undefined for anything fastify should see. */
export function inferTarget(url: string): InferTarget | undefined {
  if (!url.startsWith(PREFIX) || !url.endsWith(SUFFIX) || url.includes('%') || url.includes('?')) return undefined;
  // `<model>` or `<model>/versions/<version>` between the prefix and the suffix, read in place.
  const end = url.length - SUFFIX.length;
  const slash = url.indexOf('/', PREFIX.length);
  if (slash === -1 || slash >= end) return segmentOk(PREFIX.length, end) ? { model: url.slice(PREFIX.length, end), version: undefined } : undefined;
  // `versions/` after the first slash, and no further slash before the suffix's own.
  const at = slash + 1 + VERSIONS.length;
  if (!url.startsWith(VERSIONS, slash + 1) || at > end || url.indexOf('/', at) !== end) return undefined;
  if (!segmentOk(PREFIX.length, slash) || !segmentOk(at, end)) return undefined;
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

/**
 * Headers an ordinary /infer request may carry: nothing that asks for the route's other behaviours.
 * `compresses`: the caller compresses answers as the route does (the socket lane), so a client that
 * accepts a compressed answer is ordinary too.
 */
export function ordinaryHeaders(headers: IncomingHttpHeaders, restrictions: RestrictionTable, compresses = false): boolean {
  const type = headers['content-type'];
  if (type !== undefined && type !== lastMediaType) {
    if (!MEDIA_TYPE.test(type)) return false;
    lastMediaType = type;
  }
  if (headers['content-encoding'] !== undefined) return false;
  const acceptEncoding = headers['accept-encoding'];
  if (!compresses && acceptEncoding !== undefined && (acceptEncoding.includes('gzip') || acceptEncoding.includes('deflate'))) return false;
  const accept = headers.accept;
  if (accept !== undefined && accept.includes('text/event-stream')) return false;
  const restriction = restrictions.get('inference');
  return restriction === undefined || headerMatches(restriction, headers[restriction.key]);
}
