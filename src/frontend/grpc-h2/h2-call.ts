import { EventEmitter } from 'node:events';
import { constants, type ServerHttp2Stream } from 'node:http2';
import { encodeGrpcMessage, GrpcStatus } from './grpc-status.js';

const { HTTP2_HEADER_STATUS, HTTP2_HEADER_CONTENT_TYPE } = constants;

/** Below this a frame is one buffer (header + payload copied); above, two writes with no copy. */
const COALESCE_BYTES = 16 * 1024;

const RESPONSE_HEADERS = {
  [HTTP2_HEADER_STATUS]: 200,
  [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
  'grpc-accept-encoding': 'identity',
};

/**
 * One RPC on an HTTP/2 stream, shaped like the grpc-js call objects the front end's handlers take
 * (`request`, `getDeadline()`, `write()`, `end()`, events 'data', 'end', 'cancelled', 'error'),
 * so both front ends run the same handlers. It owns the response side: headers on first use,
 * length-prefixed messages, then `grpc-status`/`grpc-message` trailers (or a trailers-only
 * response when nothing was sent). 'cancelled' fires once when the client resets the stream, the
 * connection drops or the deadline passes before the status went out.
 */
export class H2Call extends EventEmitter {
  request: unknown = undefined;
  /** Status sent or stream gone: later writes are dropped. */
  finished = false;
  private headersSent = false;
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly stream: ServerHttp2Stream,
    private readonly serialize: (message: unknown) => Buffer,
    private readonly maxSendBytes: number,
    private readonly deadline: number,
  ) {
    super();
    stream.on('close', () => this.cancel());
    stream.on('error', () => this.cancel());
    if (Number.isFinite(deadline)) {
      this.deadlineTimer = setTimeout(() => this.sendStatus(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded'), Math.max(0, deadline - Date.now()));
    }
  }

  /** Epoch ms, or Infinity without `grpc-timeout` (what grpc-js's `getDeadline` gives). */
  getDeadline(): number { return this.deadline; }

  /** Send one response message; false when it could not be (call over, or too large). */
  write(message: unknown): boolean {
    if (this.finished) return false;
    let payload: Buffer;
    try {
      payload = this.serialize(message);
    } catch (e) {
      this.sendStatus(GrpcStatus.INTERNAL, `error serializing response: ${(e as Error).message}`);
      return false;
    }
    if (payload.length > this.maxSendBytes) {
      this.sendStatus(GrpcStatus.RESOURCE_EXHAUSTED, `Sent message larger than max (${payload.length} vs. ${this.maxSendBytes})`);
      return false;
    }
    this.respond();
    if (payload.length <= COALESCE_BYTES) {
      const frame = Buffer.allocUnsafe(5 + payload.length);
      frame[0] = 0;
      frame.writeUInt32BE(payload.length, 1);
      payload.copy(frame, 5);
      this.stream.write(frame);
    } else {
      const head = Buffer.allocUnsafe(5);
      head[0] = 0;
      head.writeUInt32BE(payload.length, 1);
      this.stream.write(head);
      this.stream.write(payload);
    }
    return true;
  }

  /** Finish with OK (the grpc-js stream handlers' `end()`). */
  end(): void { this.sendStatus(GrpcStatus.OK, ''); }

  /** One response message and OK (a unary call's answer). */
  reply(message: unknown): void {
    if (this.write(message)) this.sendStatus(GrpcStatus.OK, '');
  }

  sendStatus(code: number, message: string): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.deadlineTimer);
    const stream = this.stream;
    if (stream.destroyed || stream.closed) return;
    const trailers = { 'grpc-status': String(code), 'grpc-message': encodeGrpcMessage(message) };
    if (!this.headersSent) {
      this.headersSent = true;
      stream.respond({ ...RESPONSE_HEADERS, ...trailers }, { endStream: true });
    } else {
      stream.once('wantTrailers', () => stream.sendTrailers(trailers));
      stream.end();
    }
    // A status that ends the call early (error, deadline) also tells in-flight work to stop.
    if (code !== GrpcStatus.OK) this.emit('cancelled');
  }

  private respond(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    this.stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
  }

  private cancel(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.deadlineTimer);
    this.emit('cancelled');
  }
}
