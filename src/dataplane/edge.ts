/**
 * Per-request policy, decided once for every protocol. A front end opens one `Edge` at start-up
 * (naming its protocol and its own flags) and hands each decoded request to `edge.infer` with the
 * caller's headers; what happens between the wire and the model (header forwarding, joining the
 * caller's trace, and whatever a later policy adds: capture, experiment routing) is written here,
 * never in an adapter. The adapters only translate bytes and statuses.
 */
import type { Observable } from 'rxjs';
import { forwardHeaders } from '../protocol/index.js';
import type { InferenceRequest, InferenceResponse, TraceContext } from '../inference/index.js';
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

export interface Edge {
  /**
   * Applies the per-request policy to a decoded request and starts it. Throws (synchronously) the
   * policy's refusals, e.g. a forwarded header named like a reserved parameter, so the adapter
   * answers them as it answers a decoding error.
   */
  infer(request: InferenceRequest, headers: CallerHeaders): InferCall;
}

/** The same `traceparent()` for every request that joined no trace: no allocation on that path. */
const UNTRACED = (): undefined => undefined;

export function createEdge(infer: (request: InferenceRequest) => Observable<InferenceResponse>, options: EdgeOptions = {}): Edge {
  const pattern = options.headerForwardPattern;
  const capture = options.capture;
  const routing = options.routingHeaders;
  return {
    infer(request, headers) {
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
      let context: TraceContext | undefined;
      if (parent !== undefined) request.traceContext = context = { parent };
      // Capture decides last, on the request as the model will see it (forwarded headers included).
      const responses = capture === undefined ? infer(request) : capture.tap(request, infer);
      return { responses, traceparent: context ? () => context.traceparent : UNTRACED };
    },
  };
}
