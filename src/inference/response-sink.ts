import type { InferenceResponse } from './inference-response.js';

/**
 * Where a started request's responses go: `next` for each response (the last has `final`), then
 * `complete`, or `error` instead. An rxjs Subscriber is one; the unary front ends pass a plain
 * object, so a request they start builds no Observable and no Subscriber on its way to the model.
 *
 * A sink must not throw: a producer calls it from inside a batch, where a throw would reach the
 * backend (an rxjs Subscriber reports a throwing handler instead). Calls may come before `start`
 * returns (a request refused at once), and none come after `complete` or `error`.
 */
export interface ResponseSink {
  next(response: InferenceResponse): void;
  error(error: unknown): void;
  complete(): void;
}

/**
 * Stops a started request wherever it is (queue, backend, pipeline steps), as unsubscribing does:
 * no call reaches its sink afterwards. Calling it after the request ended does nothing.
 */
export type StopRequest = () => void;

/** Responses as an Observable gives them (typed structurally: this layer does not import rxjs). */
interface Subscribable {
  subscribe(sink: ResponseSink): { unsubscribe(): void };
}

/** Start a request given as an Observable on `sink`: its stop unsubscribes. */
export function startOn(responses: Subscribable, sink: ResponseSink): StopRequest {
  const subscription = responses.subscribe(sink);
  return () => subscription.unsubscribe();
}
