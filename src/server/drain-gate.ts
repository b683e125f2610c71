import { Errors } from '../errors.js';
import type { InferenceRequest, InferenceResponse, ResponseSink, StopRequest } from '../inference/index.js';

/** What a drain did: requests in flight when it began, and how each of them (and any admitted since) ended. */
export interface DrainResult {
  /** In flight when the drain began. */
  inFlight: number;
  /** Ended on their own during the drain: answered, failed, or dropped by their client. */
  finished: number;
  /** Still running at the timeout: answered with TRB_DRAIN_CANCELLED and cancelled. */
  cancelled: number;
}

export interface DrainGate {
  readonly draining: boolean;
  /**
   * A front end's request, counted while in flight: `run` starts it with a sink that passes its
   * responses on to `sink`. While draining it is refused with TRB_SERVER_DRAINING (on `sink`, and
   * undefined returned), unless it continues a sequence already started: Triton's sequence batcher
   * accepts those while stopping, so a sequence in progress can end.
   */
  admit(request: InferenceRequest, sink: ResponseSink, run: (sink: ResponseSink) => StopRequest | undefined): StopRequest | undefined;
  /**
   * Refuse new requests from now on, wait up to `timeoutMs` for the in-flight ones to end, then
   * answer the rest with an error (a real response on every transport, not a reset) and cancel them.
   * A second call waits for the same drain.
   */
  drain(timeoutMs: number): Promise<DrainResult>;
}

/**
 * Triton's stop (InferenceServer::Stop): readiness turns false at once, schedulers refuse new
 * requests, in-flight ones get up to --exit-timeout-secs. Only requests from the front ends pass
 * here; pipeline steps and BLS calls of an admitted request are part of it and run on.
 */
export function createDrainGate(): DrainGate {
  let draining: Promise<DrainResult> | undefined;
  const inFlight = new Set<Admitted>();
  let finished = 0;
  let onIdle: (() => void) | undefined;

  /**
   * One admitted request: passes its responses on, and leaves the in-flight set when it ends. It
   * drops its sink and its stop then, as an rxjs Subscriber drops its destination: whatever still
   * holds the request's objects (a work item in a batch) must not hold its consumer's.
   */
  class Admitted implements ResponseSink {
    readonly #model: string;
    #sink: ResponseSink | undefined;
    #stopInner: StopRequest | undefined;

    constructor(model: string, sink: ResponseSink) {
      this.#model = model;
      this.#sink = sink;
      inFlight.add(this);
    }

    started(stop: StopRequest | undefined): StopRequest | undefined {
      if (this.#sink === undefined) return undefined;
      this.#stopInner = stop;
      return () => {
        const inner = this.#stopInner;
        if (this.#end()) inner?.();
      };
    }

    next(response: InferenceResponse): void {
      this.#sink?.next(response);
    }

    error(error: unknown): void {
      const sink = this.#sink;
      if (this.#end()) sink!.error(error);
    }

    complete(): void {
      const sink = this.#sink;
      if (this.#end()) sink!.complete();
    }

    /** The drain's timeout: answered with TRB_DRAIN_CANCELLED (naming the timeout), then stopped. */
    cancel(secs: number): void {
      const sink = this.#sink;
      const inner = this.#stopInner;
      if (!this.#end(false)) return;
      sink!.error(Errors.drainCancelled(this.#model, secs));
      inner?.();
    }

    /**
     * True the first time: the request ended (answered, failed, stopped by its client or the
     * drain), and its sink and stop are let go of (callers read them first).
     */
    #end(counted = true): boolean {
      if (this.#sink === undefined) return false;
      this.#sink = this.#stopInner = undefined;
      inFlight.delete(this);
      if (counted && draining) {
        finished++;
        if (inFlight.size === 0) onIdle?.();
      }
      return true;
    }
  }

  const admit = (request: InferenceRequest, sink: ResponseSink, run: (sink: ResponseSink) => StopRequest | undefined): StopRequest | undefined => {
    if (draining && !(request.sequence && !request.sequence.start)) {
      sink.error(Errors.serverDraining(request.model));
      return undefined;
    }
    const admitted = new Admitted(request.model, sink);
    let stop;
    try {
      stop = run(admitted);
    } catch (e) {
      admitted.error(e);
      return undefined;
    }
    return admitted.started(stop);
  };

  const drain = async (timeoutMs: number): Promise<DrainResult> => {
    const started = inFlight.size;
    if (started > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        onIdle = () => { clearTimeout(timer); resolve(); };
      });
    }
    const left = [...inFlight];
    for (const admitted of left) admitted.cancel(Math.round(timeoutMs / 1000));
    return { inFlight: started, finished, cancelled: left.length };
  };

  return {
    get draining() { return draining !== undefined; },
    admit,
    drain(timeoutMs) {
      // Set before any await, so a request arriving from here on is refused.
      draining ??= drain(timeoutMs);
      return draining;
    },
  };
}
