/**
 * HTTP compression (Triton's `Content-Encoding` / `Accept-Encoding` support): gzip or deflate
 * request bodies are inflated as they stream in, so read-body.ts bounds the inflated size (a zip
 * bomb is refused with 400 as soon as its output passes --http-max-input-size, and its inflater is
 * destroyed); inference responses are compressed when the client accepts it and the body is
 * large enough to be worth it.
 */
import { createGunzip, createInflate, gzip, deflate } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { Errors } from '../../errors.js';

export function inflateRequest(request: FastifyRequest, payload: Readable): Readable {
  const header = request.headers['content-encoding'];
  if (header === undefined) return payload;
  const enc = header.trim().toLowerCase();
  if (enc === 'identity' || enc === '') return payload;
  let inflater;
  if (enc === 'gzip' || enc === 'x-gzip') inflater = createGunzip();
  else if (enc === 'deflate') inflater = createInflate();
  else throw Errors.httpEncodingUnsupported(header);
  // read-body.ts compares this with Content-Length (compressed) and with the limit.
  const counted = inflater as typeof inflater & { receivedEncodedLength: number };
  counted.receivedEncodedLength = 0;
  payload.on('data', (c: Buffer) => { counted.receivedEncodedLength += c.length; });
  payload.on('error', (e) => inflater.destroy(e));
  return payload.pipe(inflater);
}

/** The encoding an inference answer gets for this Accept-Encoding: gzip before deflate, none without either. */
export function pickEncoding(accept: string): 'gzip' | 'deflate' | undefined {
  const accepted = new Set<string>();
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(name!.trim());
  }
  if (accepted.has('gzip')) return 'gzip'; // preferred, as Triton does
  if (accepted.has('deflate')) return 'deflate';
  return undefined;
}

/** The encoding the onSend hook would use for a body of `size` bytes, if any. */
export function responseEncoding(request: FastifyRequest, size: number, threshold: number): 'gzip' | 'deflate' | undefined {
  const accept = request.headers['accept-encoding'];
  return accept && size >= threshold ? pickEncoding(accept) : undefined;
}

/**
 * Only inference responses are compressed, as in Triton: its HTTP front end compresses nothing
 * else, and Triton's async Python client reads other bodies (a model config) without inflating.
 */
function isInferRoute(request: FastifyRequest): boolean {
  return request.routeOptions.url?.endsWith('/infer') === true;
}

/** onSend hook: compress inference payloads (string/Buffer) of at least `threshold` bytes when accepted. */
export function compressResponse(threshold: number) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, p?: unknown) => void): void => {
    if (!request.headers['accept-encoding'] || !isInferRoute(request) || (typeof payload !== 'string' && !Buffer.isBuffer(payload)) || reply.getHeader('content-encoding')) {
      done(null, payload);
      return;
    }
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
    const enc = responseEncoding(request, size, threshold);
    if (!enc) {
      done(null, payload);
      return;
    }
    (enc === 'gzip' ? gzip : deflate)(payload, (err, out) => {
      if (err) return done(err);
      reply.header('content-encoding', enc);
      reply.header('content-length', out.byteLength);
      reply.header('vary', 'Accept-Encoding');
      done(null, out);
    });
  };
}
