import { ROOT_CONTEXT, type Tracer as OtelTracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * tritonserver's `--trace-config opentelemetry,<setting>=<value>` settings: the OTLP/HTTP
 * endpoint, resource attributes and the batch span processor's bounds.
 */
export interface OpenTelemetrySettings {
  url: string;
  resource: Readonly<Record<string, string>>;
  bspMaxQueueSize?: number;
  bspScheduleDelayMs?: number;
  bspMaxExportBatchSize?: number;
}

/** Triton's default endpoint: an OpenTelemetry collector on this host. */
export const DEFAULT_OTLP_URL = 'http://localhost:4318/v1/traces';

/** The SDK pieces one server exports through: spans are batched and sent in the background. */
export interface OpenTelemetryExport {
  readonly tracer: OtelTracer;
  /** The caller's context from its `traceparent`; an invalid one gives a new trace. */
  parentContext(traceparent: string): ReturnType<W3CTraceContextPropagator['extract']>;
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();
const getter = { get: (c: { traceparent: string }, k: string) => (k === 'traceparent' ? c.traceparent : undefined), keys: () => ['traceparent'] };

export function createOpenTelemetryExport(s: OpenTelemetrySettings): OpenTelemetryExport {
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: s.url }), {
    ...(s.bspMaxQueueSize !== undefined ? { maxQueueSize: s.bspMaxQueueSize } : {}),
    ...(s.bspScheduleDelayMs !== undefined ? { scheduledDelayMillis: s.bspScheduleDelayMs } : {}),
    ...(s.bspMaxExportBatchSize !== undefined ? { maxExportBatchSize: s.bspMaxExportBatchSize } : {}),
  });
  // Triton names the service "triton-inference-server" unless resource=service.name=... says otherwise.
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'tributary', ...s.resource }),
    spanProcessors: [processor],
  });
  return {
    tracer: provider.getTracer('tributary'),
    parentContext: (traceparent) => propagator.extract(ROOT_CONTEXT, { traceparent }, getter),
    shutdown: () => provider.shutdown(),
  };
}
