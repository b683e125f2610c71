/**
 * Per-request policy, decided once for every protocol. A front end opens one `Edge` at start-up
 * (naming its protocol and its own flags) and hands each decoded request to `edge.infer` with the
 * caller's headers; what happens between the wire and the model (header forwarding, joining the
 * caller's trace, and whatever a later policy adds: capture, experiment routing) is written here,
 * never in an adapter. The adapters only translate bytes and statuses.
 */
import type { Observable } from 'rxjs';
import { forwardHeaders } from '../protocol/index.js';
import { startOn, type InferenceRequest, type InferenceResponse, type ResponseSink, type StopRequest, type TraceContext } from '../inference/index.js';
import type { Capture } from '../capture/index.js';

/** The caller's headers (HTTP headers, gRPC metadata), read only as far as a policy needs them. */
export interface CallerHeaders {
  /** The first text value of one header; `name` is lower case. */
  get(name: string): string | undefined;
  /** Every header, for header forwarding; repeated values may come as arrays. */
  entries(): Iterable<readonly [string, unknown]>;
}

export interface EdgeOptions {
  /** Headers whose whole name matches become string request parameters (Triton's --*-header-forward-pattern). */
  headerForwardPattern?: RegExp | undefined;
  /** Data capture (--capture-config), the server's one: the data plane sets it on every edge. */
  capture?: Capture | undefined;
  /** The lower-case header names loaded experiments route on, read per request (they change with loads). */
  routingHeaders?: () => readonly string[];
}

/** One admitted request: its responses, and the span that serves it once it is traced. */
export interface InferCall {
  /** One response, or many for a decoupled model; the last has `final`. Unsubscribe cancels. */
  readonly responses: Observable<InferenceResponse>;
  /** The `traceparent` naming the server's span (opentelemetry mode, caller sent one); read it when answering. */
  traceparent(): string | undefined;
}

/**
 * One admitted request not yet started (`Edge.open`): for a unary answer, which needs no
 * Observable. Its span is known once it starts, and `start` may answer before it returns (a
 * refusal, a cache hit), so the span is read from here rather than from what `start` returns.
 */
export interface OpenCall {
  /** Starts it: the responses go to `sink`. Returns how to stop it (a client gone). */
  start(sink: ResponseSink): StopRequest;
  traceparent(): string | undefined;
}

export interface Edge {
  /**
   * Applies the per-request policy to a decoded request and starts it. Throws (synchronously) the
   * policy's refusals, e.g. a forwarded header named like a reserved parameter, so the adapter
   * answers them as it answers a decoding error.
   */
  infer(request: InferenceRequest, headers: CallerHeaders): InferCall;
  /** `infer` for a unary answer: the same policy, and a call started on a sink rather than an Observable. */
  open(request: InferenceRequest, headers: CallerHeaders): OpenCall;
}

/** The same `traceparent()` for every request that joined no trace: no allocation on that path. */
const UNTRACED = (): undefined => undefined;

/** Starts a request on a sink: the server's own start, or its infer subscribed. */
export type StartOnSink = (request: InferenceRequest, sink: ResponseSink) => StopRequest | undefined;

const NOTHING_TO_STOP = (): void => undefined;

/** What an open call needs of its edge. */
interface EdgeRun {
  readonly infer: (request: InferenceRequest) => Observable<InferenceResponse>;
  readonly start: StartOnSink;
  readonly capture: Capture | undefined;
}

class Opened implements OpenCall {
  readonly #run: EdgeRun;
  readonly #request: InferenceRequest;
  readonly #context: TraceContext | undefined;

  constructor(run: EdgeRun, request: InferenceRequest, context: TraceContext | undefined) {
    this.#run = run;
    this.#request = request;
    this.#context = context;
  }

  start(sink: ResponseSink): StopRequest {
    const run = this.#run;
    // Capture decides last, on the request as the model will see it (forwarded headers included).
    const stop = run.capture === undefined ? run.start(this.#request, sink) : startOn(run.capture.tap(this.#request, run.infer), sink);
    return stop ?? NOTHING_TO_STOP;
  }

  traceparent(): string | undefined {
    return this.#context?.traceparent;
  }
}

export function createEdge(infer: (request: InferenceRequest) => Observable<InferenceResponse>, options: EdgeOptions = {}, startOnSink?: StartOnSink): Edge {
  const pattern = options.headerForwardPattern;
  const capture = options.capture;
  const routing = options.routingHeaders;
  const run: EdgeRun = { infer, capture, start: startOnSink ?? ((request, sink) => startOn(infer(request), sink)) };
  /** The policy, applied to `request` in place; returns the context its span will write its traceparent to. */
  const apply = (request: InferenceRequest, headers: CallerHeaders): TraceContext | undefined => {
    if (pattern) {
      const parameters = forwardHeaders(pattern, request.model, headers.entries(), request.parameters);
      if (parameters) request.parameters = parameters;
    }
    // Experiment stickiness (`sticky: { header: x-user }`): only the headers a loaded experiment
    // asks for are copied, into a request field the router reads and no model sees.
    const names = routing?.();
    if (names !== undefined && names.length > 0) {
      let found: Record<string, string> | undefined;
      for (const name of names) {
        const value = headers.get(name);
        if (value !== undefined) (found ??= {})[name] = value;
      }
      if (found) request.routingHeaders = found;
    }
    // A caller's W3C traceparent: in opentelemetry mode the request's span joins that trace, and
    // the tracer writes the server span's traceparent back into the context for the answer.
    const parent = headers.get('traceparent');
    if (parent === undefined) return undefined;
    return request.traceContext = { parent };
  };
  return {
    infer(request, headers) {
      const context = apply(request, headers);
      // Capture decides last, on the request as the model will see it (forwarded headers included).
      const responses = capture === undefined ? infer(request) : capture.tap(request, infer);
      return { responses, traceparent: context ? () => context.traceparent : UNTRACED };
    },
    open(request, headers) {
      return new Opened(run, request, apply(request, headers));
    },
  };
}
