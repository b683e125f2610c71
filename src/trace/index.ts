/**
 * The trace extension: request sampling, per-model traces, Triton's JSON trace files (`triton`
 * mode) and spans exported over OTLP/HTTP (`opentelemetry` mode). The models fill traces in
 * through the RequestTrace interface of inference/.
 */
export { Tracer } from './tracer.js';
export { DEFAULT_OTLP_URL, type OpenTelemetrySettings } from './otel-export.js';
