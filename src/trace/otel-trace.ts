import { ROOT_CONTEXT, trace as otelTrace, type Context, type Link, type Span } from '@opentelemetry/api';
import type { BatchTrace, RequestTrace, TraceActivity, TraceContext, TraceSpawner } from '../inference/index.js';
import type { LogContext } from '../logger.js';
import type { OpenTelemetryExport } from './otel-export.js';

/** The server clock is performance.now() milliseconds; OpenTelemetry takes epoch milliseconds. */
const epochMs = (ms: number): number => performance.timeOrigin + ms;

/**
 * The spawner a sampled request carries in opentelemetry mode: the model that serves it opens the
 * request's span, under the caller's trace when the request came with a traceparent; the trace id
 * goes to `log` for the request's log lines.
 */
export function otelRootSpawner(exp: OpenTelemetryExport, caller: TraceContext | undefined, log: LogContext): TraceSpawner {
  return {
    open: (model, version, requestId) => {
      const parent = caller ? exp.parentContext(caller.parent) : ROOT_CONTEXT;
      const t = new OtelTrace(exp, parent, model, version, requestId);
      if (caller) caller.traceparent = t.traceparent;
      log.traceId = t.traceId;
      return t;
    },
  };
}

/**
 * One model's span of one request. Triton's timestamps become events on it, the time between
 * QUEUE_START and COMPUTE_START a `queue` child span and the execution a `compute` child span;
 * pipeline steps and BLS calls open their spans under it.
 */
class OtelTrace implements RequestTrace {
  readonly tensors = false;
  readonly #exp: OpenTelemetryExport;
  readonly #span: Span;
  readonly #context: Context;
  #queueAt: number | undefined;
  #computeAt: number | undefined;
  #endAt: number | undefined;
  #ended = false;

  constructor(exp: OpenTelemetryExport, parent: Context, model: string, version: string, requestId: string | undefined) {
    this.#exp = exp;
    this.#span = exp.tracer.startSpan(model, {
      attributes: { 'triton.model_name': model, 'triton.model_version': version, ...(requestId ? { 'triton.request_id': requestId } : {}) },
    }, parent);
    this.#context = otelTrace.setSpan(parent, this.#span);
  }

  get traceId(): string {
    return this.#span.spanContext().traceId;
  }

  get traceparent(): string {
    const c = this.#span.spanContext();
    return `00-${c.traceId}-${c.spanId}-0${c.traceFlags & 1}`;
  }

  open(model: string, version: string, requestId: string | undefined): RequestTrace {
    return new OtelTrace(this.#exp, this.#context, model, version, requestId);
  }

  stamp(activity: TraceActivity, ms: number): void {
    this.#span.addEvent(activity, epochMs(ms));
    if (activity === 'QUEUE_START') this.#queueAt = ms;
    else if (activity === 'CACHE_HIT' || activity === 'CACHE_MISS') this.#span.setAttribute('triton.cache_hit', activity === 'CACHE_HIT');
    else if (activity === 'COMPUTE_START') {
      this.#computeAt = ms;
      if (this.#queueAt !== undefined) this.#child('queue', this.#queueAt, ms);
      this.#queueAt = undefined;
    } else if (activity === 'COMPUTE_END' && this.#computeAt !== undefined) {
      this.#child('compute', this.#computeAt, ms);
    } else if (activity === 'REQUEST_END') {
      this.#endAt = ms;
      // Refused or cancelled in the queue: it queued until the end.
      if (this.#queueAt !== undefined) this.#child('queue', this.#queueAt, ms);
    }
  }

  /**
   * A batch runs for several requests, each in its own trace, so its span is the root of a trace
   * of its own with a link to every traced request's span (OpenTelemetry's rule for batches: a
   * span has one parent, links for the rest).
   */
  batch(model: string, version: string, batch: readonly RequestTrace[], requests: number, rows: number, ms: number): BatchTrace {
    const links: Link[] = [];
    for (const t of batch) if (t instanceof OtelTrace) links.push({ context: t.#span.spanContext() });
    const span = this.#exp.tracer.startSpan(`${model} batch`, {
      root: true, links, startTime: epochMs(ms),
      attributes: { 'triton.model_name': model, 'triton.model_version': version, 'triton.batch_size': rows, 'triton.batch_requests': requests },
    });
    return { end: (at) => span.end(epochMs(at)) };
  }

  note(key: string, value: string): void {
    this.#span.setAttribute(key, value);
  }

  tensor(): void {
    // Tensors are a triton-mode record (trace level TENSORS); spans do not carry them.
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#span.end(this.#endAt === undefined ? undefined : epochMs(this.#endAt));
  }

  #child(name: string, from: number, to: number): void {
    this.#exp.tracer.startSpan(name, { startTime: epochMs(from) }, this.#context).end(epochMs(to));
  }
}
