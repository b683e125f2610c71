/**
 * Requests over node:http (or node:https) with one keep-alive agent per client (no connection
 * set-up per call), bodies written as chunk lists in one corked write, optional gzip/deflate both
 * ways. Non-2xx answers become ClientError with the server's `{"error"}` message; an aborted signal
 * rejects with the signal's reason (an AbortError), as fetch does. HTTPS checks the server's
 * certificate (against `tls.ca`, else the system's roots) and its name, and can present a client
 * certificate for mutual TLS.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { deflate, gunzip, gzip, inflate } from 'node:zlib';
import { ClientError } from '../client-error.js';
import type { TlsClientOptions } from '../types.js';
import type { EncodedBody } from './encode-http-infer.js';

const zip = { gzip: promisify(gzip), deflate: promisify(deflate) };
const unzip = { gzip: promisify(gunzip), deflate: promisify(inflate) };

/**
 * Below this, a body is copied into one buffer (one write is cheaper than writev's bookkeeping);
 * above it, tensor chunks go to the socket as they are (no copy of large tensors).
 */
const SMALL_BODY = 64 * 1024;

function joinChunks(chunks: readonly (string | Uint8Array)[], length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let p = 0;
  for (const c of chunks) {
    if (typeof c === 'string') p += out.write(c, p, 'utf8');
    else { out.set(c, p); p += c.byteLength; }
  }
  return out;
}

export interface HttpTransportOptions {
  url: string;
  headers?: Record<string, string>;
  compression?: 'gzip' | 'deflate';
  /** HTTPS settings; a URL without a scheme is then https. */
  tls?: TlsClientOptions;
}

interface HttpReply { status: number; headers: IncomingMessage['headers']; body: Buffer }

export interface HttpTransport {
  readonly url: string;
  /** Send and read the whole answer; throws ClientError for a status >= 400. */
  request(method: string, path: string, body?: EncodedBody, headers?: OutgoingHttpHeaders, signal?: AbortSignal): Promise<HttpReply>;
  /** Send and hand back the response as it streams; throws ClientError for a status >= 400. */
  open(method: string, path: string, body?: EncodedBody, headers?: OutgoingHttpHeaders, signal?: AbortSignal): Promise<IncomingMessage>;
  close(): void;
}

/** `localhost:8000` (tritonclient's form) or a full URL, with an optional path prefix. */
function parseUrl(url: string, tls: TlsClientOptions | undefined): URL {
  const u = new URL(url.includes('://') ? url : `${tls ? 'https' : 'http'}://${url}`);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ClientError(`unsupported URL scheme '${u.protocol}' in '${url}': use http or https`);
  if (tls && u.protocol === 'http:') throw new ClientError(`'tls' options need an https:// URL, got '${url}'`, { kind: 'INVALID_ARG' });
  if (tls && (tls.cert === undefined) !== (tls.key === undefined)) {
    throw new ClientError('HTTP client: tls.cert and tls.key go together (a client certificate needs its private key)', { kind: 'INVALID_ARG' });
  }
  return u;
}

const pem = (v: string | Uint8Array | undefined) => (v === undefined ? undefined : typeof v === 'string' ? v : Buffer.from(v));

/** The agent's TLS options: only what was given, so the system's roots stay the default. */
function agentTls(tls: TlsClientOptions | undefined) {
  if (!tls) return {};
  return Object.fromEntries(Object.entries({ ca: pem(tls.ca), cert: pem(tls.cert), key: pem(tls.key) }).filter(([, v]) => v !== undefined));
}

function readBody(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => { parts.push(c); size += c.length; });
    res.on('end', () => resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)));
    res.on('error', reject);
    res.on('close', () => { if (!res.complete) reject(new ClientError('the connection closed before the response was complete', { kind: 'UNAVAILABLE' })); });
  });
}

async function decodedBody(res: IncomingMessage): Promise<Buffer> {
  const raw = await readBody(res);
  const enc = res.headers['content-encoding'];
  return enc === 'gzip' || enc === 'deflate' ? unzip[enc](raw) : raw;
}

/** The server's `{"error": "..."}` text, or the body itself. */
function errorMessage(body: Buffer, status: number): string {
  const text = body.toString('utf8');
  try {
    const e = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof e === 'string') return e;
  } catch { /* not JSON */ }
  return text || `HTTP ${status}`;
}

export function createHttpTransport(options: HttpTransportOptions): HttpTransport {
  const base = parseUrl(options.url, options.tls);
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, scheduling: 'lifo', ...agentTls(options.tls) })
    : new HttpAgent({ keepAlive: true, scheduling: 'lifo' });
  const send = secure ? httpsRequest : httpRequest;
  const prefix = base.pathname.replace(/\/+$/, '');
  const compression = options.compression;
  const url = `${base.protocol}//${base.host}${prefix}`;

  const open = async (method: string, path: string, body?: EncodedBody, headers: OutgoingHttpHeaders = {}, signal?: AbortSignal): Promise<IncomingMessage> => {
    signal?.throwIfAborted();
    const h: OutgoingHttpHeaders = { ...options.headers, ...headers };
    let chunks = body?.chunks;
    let length = body?.byteLength ?? 0;
    if (body) {
      h['content-type'] = body.headerLength === undefined ? 'application/json' : 'application/octet-stream';
      if (body.headerLength !== undefined) h['inference-header-content-length'] = body.headerLength;
      if (compression) {
        const packed = await zip[compression](Buffer.concat(body.chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))));
        chunks = [packed];
        length = packed.byteLength;
        h['content-encoding'] = compression;
      }
    }
    if (compression) h['accept-encoding'] = compression;
    if (body || method !== 'GET') h['content-length'] = length;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = send({
        agent, protocol: base.protocol, hostname: base.hostname, port: base.port, path: prefix + path, method, headers: h,
        ...(signal ? { signal } : {}),
      }, resolve);
      req.on('error', (e: Error & { code?: string }) => {
        if (signal?.aborted) reject(signal.reason);
        else reject(new ClientError(`${method} ${url}${path}: ${e.message}`, { kind: 'UNAVAILABLE', cause: e }));
      });
      if (chunks && chunks.length > 1 && length > SMALL_BODY) {
        req.cork();
        for (const c of chunks) req.write(c);
        req.end();
      } else if (chunks && chunks.length > 0) {
        req.end(chunks.length === 1 ? chunks[0] : joinChunks(chunks, length));
      } else {
        req.end();
      }
    });
    const status = res.statusCode ?? 0;
    if (status >= 400) {
      const text = errorMessage(await decodedBody(res), status);
      throw new ClientError(text, { status });
    }
    return res;
  };

  return {
    url,
    open,
    async request(method, path, body, headers, signal) {
      const res = await open(method, path, body, headers, signal);
      try {
        return { status: res.statusCode ?? 0, headers: res.headers, body: await decodedBody(res) };
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        throw e;
      }
    },
    close() {
      agent.destroy();
    },
  };
}
