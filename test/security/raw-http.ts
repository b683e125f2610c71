/**
 * Raw HTTP/1.1 over node:net (or node:tls): what an attacker sends byte by byte, with pauses, and
 * everything the server answers until it closes the connection.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

/** Bytes to write, or a pause in milliseconds. */
export type Step = string | Buffer | { pauseMs: number };

export interface RawExchange {
  /** Everything received, as latin1 text. */
  text: string;
  /** The server closed the connection (rather than `waitMs` passing). */
  closed: boolean;
  /** Milliseconds from connecting to the close (or to giving up). */
  ms: number;
  /** Byte steps not written because the connection was gone by then. */
  unsent: number;
  /** A socket error (ECONNRESET, a TLS alert), if any. */
  error?: string;
}

export interface RawResponse { status: number; headers: Record<string, string>; body: string }

/** Run `steps` on a fresh connection to 127.0.0.1:`port`; resolve when the server closes it or after `waitMs`. */
export function exchange(port: number, steps: readonly Step[], options: { waitMs?: number; tls?: ConnectionOptions } = {}): Promise<RawExchange> {
  const started = performance.now();
  const socket: Socket = options.tls
    ? tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', ...options.tls })
    : netConnect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  let error: string | undefined;
  let written = 0;
  let gone = false;
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', (e: NodeJS.ErrnoException) => { error ??= e.code ?? e.message; });
  const closed = new Promise<boolean>((resolve) => {
    socket.on('close', () => { gone = true; resolve(true); });
    setTimeout(() => resolve(false), options.waitMs ?? 5000).unref();
  });
  const ready = new Promise<void>((resolve) => socket.once(options.tls ? 'secureConnect' : 'connect', () => resolve()));
  const write = async () => {
    await Promise.race([ready, closed]);
    for (const step of steps) {
      if (gone || socket.destroyed) return;
      if (typeof step === 'object' && 'pauseMs' in step) await new Promise((r) => setTimeout(r, step.pauseMs));
      else {
        socket.write(step);
        written++;
      }
    }
  };
  void write();
  return closed.then((wasClosed) => {
    const ms = performance.now() - started;
    gone = true;
    socket.destroy();
    const unsent = steps.filter((s) => !(typeof s === 'object' && 'pauseMs' in s)).length - written;
    return { text: Buffer.concat(chunks).toString('latin1'), closed: wasClosed, ms, unsent, ...(error ? { error } : {}) };
  });
}

/** The HTTP responses in `text`, in order (bodies framed by Content-Length). */
export function responses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

/** The one response in `text`, with its `{"error"}` message; fails loudly on anything else. */
export function errorResponse(text: string): { status: number; error: string; headers: Record<string, string> } {
  const [r] = responses(text);
  if (!r) throw new Error(`no HTTP response in ${JSON.stringify(text.slice(0, 200))}`);
  const parsed = JSON.parse(r.body) as { error?: unknown };
  if (typeof parsed.error !== 'string' || Object.keys(parsed).length !== 1) throw new Error(`not a v2 error body: ${r.body}`);
  return { status: r.status, error: parsed.error, headers: r.headers };
}
