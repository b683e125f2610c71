/**
 * Request bodies are read into ONE buffer of Content-Length bytes, allocated before the first chunk
 * arrives, instead of fastify's chunk list + Buffer.concat: the socket's chunks are copied once,
 * straight into place. The buffer starts at an offset that makes the binary section (after the
 * `Inference-Header-Content-Length` JSON bytes) 8-byte aligned, so FP32/INT64/FP64 inputs are views
 * with no alignment copy. Measured on W2 (16 MB identity, c=1): fastify's concat cost ~2.6 ms of
 * main-thread CPU per request, and ~3 of 4 header lengths forced a second 16 MB copy in
 * `binaryInput`. Bodies without a usable Content-Length (chunked, or inflated from gzip/deflate)
 * still collect chunks, then land in one aligned buffer the same way.
 *
 * `--http-max-input-size` bounds what is kept: a declared Content-Length past it is refused before
 * a byte is read, and received (or inflated) bytes are counted as they arrive. At the limit the
 * body is abandoned at once: the inflater is destroyed (no more CPU spent on a bomb) and the rest of
 * the request is read and dropped, not buffered, until the connection closes after the 400 (Triton's
 * status and words for a body past the limit).
 */
import { Writable, type Readable } from 'node:stream';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Errors, type TributaryError } from '../../errors.js';
import { HEADER_LENGTH } from '../../protocol/index.js';

const ALIGN = 8;
/**
 * Largest body allocated up front from its Content-Length alone: past this, a client could make
 * the server reserve memory it never sends. Larger bodies collect their chunks as they arrive
 * (one extra copy at the end) so memory follows the bytes actually received.
 */
const PREALLOCATE_MAX = 64 * 1024 * 1024;
/** Below Buffer.poolSize / 2, allocUnsafe slices the shared pool. */
const POOLED_MAX = Buffer.poolSize >>> 1;

/**
 * Which of Triton's refusals a body past the limit gets: Inference-Header-Content-Length 0 is a raw
 * binary body, no header makes the whole body JSON, and a body with a binary section is ours.
 */
function bodyKind(request: { readonly headers: IncomingHttpHeaders }): 'raw' | 'json' | 'body' {
  const v = request.headers[HEADER_LENGTH];
  if (v === undefined) return 'json';
  return typeof v === 'string' && v.trim() === '0' ? 'raw' : 'body';
}

/** The refusal of a body past `limit`; `bytes` is its size, or what had arrived (`partial`). */
export function bodyTooLarge(limit: number, request?: { readonly headers: IncomingHttpHeaders }, bytes?: number, partial = false): TributaryError {
  return Errors.httpInputTooLarge(request ? bodyKind(request) : 'body', bytes, limit, partial);
}

/** `size` bytes whose byte `split` sits on an 8-byte boundary of the underlying ArrayBuffer. */
export function alignedBuffer(size: number, split: number): Buffer {
  const lead = (ALIGN - (split % ALIGN)) % ALIGN;
  // Small bodies come from Buffer's pool (its slices start 8-aligned; cheapest for W1's tiny
  // requests). Large ones get their own ArrayBuffer: such a body may be moved to a worker thread.
  if (size + lead < POOLED_MAX) return Buffer.allocUnsafe(size + lead).subarray(lead);
  return Buffer.from(new ArrayBuffer(size + lead), lead, size);
}

/** What the reader needs of a request: a fastify request has both, and so does fast-infer.ts's plain one. */
export interface BodySource {
  readonly headers: IncomingHttpHeaders;
  readonly raw: IncomingMessage;
}

/** Where the binary section will start: a valid header length, else 0 (nothing to align). */
function splitPoint(headers: IncomingHttpHeaders, size: number): number {
  const v = headers[HEADER_LENGTH];
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : 0;
  return n <= size ? n : 0;
}

/** The buffer a body of `size` bytes with these headers is read into: its binary section 8-byte aligned. */
export function bodyBuffer(headers: IncomingHttpHeaders, size: number): Buffer {
  return alignedBuffer(size, splitPoint(headers, size));
}

/**
 * Stop reading a refused body. An inflater is unhooked and destroyed; the socket's remaining bytes
 * flow into no listener (dropped), so neither memory nor decompression follows what the client sends.
 */
function abandon(request: BodySource, payload: Readable): void {
  if (payload !== request.raw) {
    // The only other payload is compression.ts's inflater, a zlib Transform piped from the socket.
    if (payload instanceof Writable) request.raw.unpipe(payload);
    payload.destroy();
  }
  request.raw.resume();
}

/** A fastify content-type parser body (`(request, payload, done)` form) with `limit` enforced. */
export function readBody(limit: number) {
  return (request: BodySource, payload: Readable, done: (err: Error | null, body?: Buffer) => void): void => {
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      abandon(request, payload);
      return done(bodyTooLarge(limit, request, declared));
    }
    // An inflating preParsing stream yields a different (unknown) number of bytes.
    const inflating = (payload as { receivedEncodedLength?: number }).receivedEncodedLength !== undefined;
    const direct = !inflating && Number.isSafeInteger(declared) && declared >= 0 && declared <= PREALLOCATE_MAX;
    const body = direct ? bodyBuffer(request.headers, declared) : undefined;
    // Only a body without a usable Content-Length collects chunks.
    const chunks: Buffer[] | undefined = body ? undefined : [];
    let received = 0;
    const finish = (err: Error | null, value?: Buffer) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      if (err) {
        if (chunks) chunks.length = 0;
        abandon(request, payload);
      }
      done(err, value);
    };
    const onData = (chunk: Buffer) => {
      const encoded = (payload as { receivedEncodedLength?: number }).receivedEncodedLength ?? 0;
      if (received + chunk.length > limit || encoded > limit) {
        return finish(inflating ? Errors.httpInputTooLarge('decompressed', undefined, limit) : bodyTooLarge(limit, request, received + chunk.length, Number.isNaN(declared)));
      }
      if (body) {
        if (received + chunk.length > body.length) return finish(Errors.httpMalformed('the request body is longer than its Content-Length'));
        body.set(chunk, received);
      } else {
        chunks!.push(chunk);
      }
      received += chunk.length;
    };
    const onEnd = () => {
      const seen = (payload as { receivedEncodedLength?: number }).receivedEncodedLength || received;
      if (!Number.isNaN(declared) && seen !== declared) return finish(Errors.httpMalformed(`the request body has ${seen} bytes, its Content-Length says ${declared}`));
      if (body) return finish(null, body);
      const out = bodyBuffer(request.headers, received);
      let p = 0;
      for (const c of chunks!) { out.set(c, p); p += c.length; }
      finish(null, out);
    };
    const onError = (e: Error & { statusCode?: number }) => finish(e);
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  };
}
