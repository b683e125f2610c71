import { Observable } from 'rxjs';
import { Errors } from '../errors.js';
import type { InferenceRequest, InferenceResponse } from '../inference/index.js';

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
   * A front end's request, counted while in flight. While draining it is refused with
   * TRB_SERVER_DRAINING, unless it continues a sequence already started: Triton's sequence
   * batcher accepts those while stopping, so a sequence in progress can end.
   */
  admit(request: InferenceRequest, run: () => Observable<InferenceResponse>): Observable<InferenceResponse>;
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
  /** Each in-flight request's cancel: it answers with TRB_DRAIN_CANCELLED (naming the timeout). */
  const inFlight = new Set<(secs: number) => void>();
  let finished = 0;
  let onIdle: (() => void) | undefined;

  const admit = (request: InferenceRequest, run: () => Observable<InferenceResponse>) =>
    new Observable<InferenceResponse>((subscriber) => {
      if (draining && !(request.sequence && !request.sequence.start)) {
        subscriber.error(Errors.serverDraining(request.model));
        return undefined;
      }
      const cancel = (secs: number) => {
        inFlight.delete(cancel);
        subscriber.error(Errors.drainCancelled(request.model, secs));
      };
      inFlight.add(cancel);
      const inner = run().subscribe(subscriber);
      return () => {
        inner.unsubscribe();
        if (!inFlight.delete(cancel) || !draining) return;
        finished++;
        if (inFlight.size === 0) onIdle?.();
      };
    });

  const drain = async (timeoutMs: number): Promise<DrainResult> => {
    const started = inFlight.size;
    if (started > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        onIdle = () => { clearTimeout(timer); resolve(); };
      });
    }
    const left = [...inFlight];
    for (const cancel of left) cancel(Math.round(timeoutMs / 1000));
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
