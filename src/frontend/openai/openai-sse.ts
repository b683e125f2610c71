/**
 * The server-sent events of a streamed OpenAI answer: one `data: <json>` event per chunk, then
 * `data: [DONE]`. An error before the first event is a plain OpenAI error answer; after it, an
 * `{"error": {...}}` event ends the stream (OpenAI's clients raise it).
 *
 * Backpressure as on the other streams (src/frontend/stream): every event is accounted in the
 * stream's StreamBuffer from `write` until its callback, and that buffer is the `demand` of the
 * model runs behind the stream, so a script that awaits its sends waits for a slow client. An
 * event past the bound ends the stream with TRB_STREAM_BUFFER_FULL.
 */
import type { FastifyReply } from 'fastify';
import { Errors } from '../../errors.js';
import type { StreamBuffer } from '../stream/index.js';
import { openAiError, sendOpenAiError } from './openai-error.js';

export interface SseOptions {
  model: string;
  buffer: StreamBuffer;
  draining: () => boolean;
  traceparent: () => string | undefined;
  /** The client went away: stop everything that feeds the stream. */
  onClose: () => void;
}

export class OpenAiSse {
  readonly #reply: FastifyReply;
  readonly #o: SseOptions;
  #started = false;
  #ended = false;

  constructor(reply: FastifyReply, options: SseOptions) {
    this.#reply = reply;
    this.#o = options;
    reply.raw.on('close', () => {
      options.buffer.close();
      if (!this.#ended) {
        this.#ended = true;
        options.onClose();
      }
    });
  }

  get ended(): boolean {
    return this.#ended;
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#reply.hijack();
    const traceparent = this.#o.traceparent();
    this.#reply.raw.writeHead(200, {
      'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: this.#o.draining() ? 'close' : 'keep-alive',
      ...(traceparent ? { traceparent } : {}),
    });
  }

  /** Write one chunk; false when the stream is over (ended, or its bound passed: it then fails). */
  send(chunk: object): boolean {
    if (this.#ended) return false;
    const event = `data: ${JSON.stringify(chunk)}\n\n`;
    // A string's length stands for its bytes: the chunks are JSON, ASCII but for the text.
    const n = event.length;
    const buffer = this.#o.buffer;
    if (!buffer.admit(n)) {
      const o = buffer.overflowed();
      this.fail(Errors.streamBufferFull(this.#o.model, o.held, o.bound, o.flag));
      return false;
    }
    this.#start();
    this.#reply.raw.write(event, () => buffer.release(n));
    return true;
  }

  done(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#start();
    this.#reply.raw.end('data: [DONE]\n\n');
  }

  fail(e: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#o.onClose();
    if (!this.#started) {
      this.#o.buffer.close();
      sendOpenAiError(this.#reply, e);
      return;
    }
    this.#reply.raw.end(`data: ${openAiError(e).body}\n\n`);
  }
}
