import type { StreamBuffer } from './stream-buffer.js';

/** What the streams of one server may hold for clients that have not taken it yet. */
export interface StreamLimits {
  /** At most this many bytes wait in one stream (--stream-buffer-bytes). */
  streamBytes: number;
  /** At most this many bytes wait in all streams together (--stream-buffer-total-bytes). */
  totalBytes: number;
}

/**
 * 2 MiB a stream: its producers pause at an eighth of it (256 KiB, about 800 small responses: ample
 * for a reading client, since a paused script resumes within one isolate entry), and 30 streams of
 * clients that never read hold 60 MiB at most. 256 MiB for the whole server.
 */
export const STREAM_DEFAULTS: Readonly<StreamLimits> = Object.freeze({ streamBytes: 2 * 2 ** 20, totalBytes: 256 * 2 ** 20 });

/**
 * Bytes charged per message on top of its own: its Buffer object and its entry in the writer's
 * queue. Without it a stream of 60-byte responses would hold several times what its bound says;
 * with it the count follows memory (the soak test's 25 never-read streams counted 17.2 MB and grew
 * the process by 18-19 MB).
 */
export const MESSAGE_OVERHEAD = 256;

/** Where a stream writes: its figures are kept apart on the metrics. */
export type StreamProtocol = 'grpc' | 'sse';

export interface StreamFigures {
  /** Bytes waiting now (messages count MESSAGE_OVERHEAD each on top). */
  bytes: number;
  /** Streams whose producers are paused now. */
  paused: number;
  /** Times a stream paused its producers. */
  pauses: number;
  /** Requests failed because their stream was full (TRB_STREAM_BUFFER_FULL). */
  overflows: number;
}

/**
 * The server-wide account of streamed responses waiting for their clients, shared by the gRPC and
 * HTTP front ends (one per process, made by `serve`; a front end started alone makes its own).
 * Once half of `totalBytes` is waiting, every stream that holds anything pauses its producers; it
 * resumes when the total is back under three eighths.
 */
export class StreamBudget {
  readonly limits: Readonly<StreamLimits>;
  bytes = 0;
  readonly figures: Record<StreamProtocol, StreamFigures> = {
    grpc: { bytes: 0, paused: 0, pauses: 0, overflows: 0 },
    sse: { bytes: 0, paused: 0, pauses: 0, overflows: 0 },
  };
  #saturated = false;
  /** Streams with a producer waiting that only the total holds back. */
  readonly #waiting = new Set<StreamBuffer>();

  constructor(limits: Partial<StreamLimits> = {}) {
    this.limits = Object.freeze({ ...STREAM_DEFAULTS, ...limits });
  }

  /** True from half of totalBytes waiting until the total falls under three eighths. */
  get saturated(): boolean {
    return this.#saturated;
  }

  /** @internal a stream's bytes changed by `delta`. */
  add(protocol: StreamProtocol, delta: number): void {
    this.bytes += delta;
    this.figures[protocol].bytes += delta;
    if (!this.#saturated) {
      if (this.bytes >= this.limits.totalBytes / 2) this.#saturated = true;
    } else if (this.bytes <= (this.limits.totalBytes * 3) / 8) {
      this.#saturated = false;
      const waiting = [...this.#waiting];
      this.#waiting.clear();
      for (const s of waiting) s.recheck();
    }
  }

  /** @internal */
  wait(s: StreamBuffer): void {
    this.#waiting.add(s);
  }

  /** @internal */
  forget(s: StreamBuffer): void {
    this.#waiting.delete(s);
  }
}
