import { Observable } from 'rxjs';
import type { InferenceRequest, InferenceResponse } from '../inference/index.js';
import { withLogContext, type LogContext, type Logger } from '../logger.js';
import { createOpenTelemetryExport, type OpenTelemetryExport, type OpenTelemetrySettings } from './otel-export.js';
import { otelRootSpawner } from './otel-trace.js';
import { rootSpawner, type TraceTarget } from './request-trace.js';
import { TraceFile } from './trace-file.js';

/** Trace settings as the trace extension shows them: trace_level a list, the others one string. */
export type TraceValues = Readonly<Record<string, string | readonly string[]>>;

/** One set of settings (global or a model's) with its own sampling and count state, as Triton keeps them. */
class Sampling implements TraceTarget {
  readonly enabled: boolean;
  readonly otel: boolean;
  readonly tensors: boolean;
  readonly file: TraceFile;
  readonly #rate: number;
  /** trace_count as configured, to tell a changed setting from a re-applied one. */
  readonly configuredCount: string;
  #count: number;
  #seen = 0;
  readonly nextId: () => number;

  constructor(v: TraceValues, file: (path: string, logFrequency: number) => TraceFile, nextId: () => number, canExport: boolean) {
    const levels = [v.trace_level ?? []].flat();
    this.tensors = levels.includes('TENSORS');
    this.#rate = Number(v.trace_rate ?? 1000);
    this.configuredCount = String(v.trace_count ?? -1);
    this.#count = Number(this.configuredCount);
    const path = String(v.trace_file ?? '');
    this.file = file(path, Number(v.log_frequency ?? 0));
    this.nextId = nextId;
    this.otel = v.trace_mode === 'opentelemetry';
    // opentelemetry mode needs no file but an exporter (set up from --trace-config at start).
    this.enabled = !levels.includes('OFF') && levels.length > 0 && (this.otel ? canExport : path !== '') && this.#rate > 0 && this.#count !== 0;
  }

  /** Traces still to take (-1: no limit): what the trace settings show as trace_count, as Triton's do. */
  get count(): number {
    return this.#count;
  }

  /** Settings re-applied with the same trace_count keep counting down from where they were. */
  continueFrom(previous: Sampling | undefined): void {
    if (previous && previous.configuredCount === this.configuredCount) this.#count = previous.#count;
  }

  /** Triton's sampling: the rate-th, 2*rate-th, ... request is traced, until count traces (-1: no limit). */
  take(): boolean {
    if (this.#count === 0 || ++this.#seen % this.#rate !== 0) return false;
    if (this.#count > 0) this.#count--;
    return true;
  }
}

/**
 * The trace extension in `triton` mode: samples requests as they enter the server and gives the
 * sampled ones a trace that the models serving them fill in and write to the trace file. When no
 * setting enables tracing, `sample` is one field test.
 */
export class Tracer {
  readonly #log: Logger;
  #on = false;
  #global: Sampling | undefined;
  #models = new Map<string, Sampling>();
  readonly #files = new Map<string, TraceFile>();
  #lastId = 0;
  readonly #nextId = () => ++this.#lastId;
  readonly #export: OpenTelemetryExport | undefined;

  /** With `openTelemetry`, requests of models in opentelemetry mode export spans to its endpoint. */
  constructor(log: Logger, openTelemetry?: OpenTelemetrySettings) {
    this.#log = log;
    this.#export = openTelemetry ? createOpenTelemetryExport(openTelemetry) : undefined;
  }

  /**
   * Apply the global settings and every model's (each already merged over the global ones). A
   * setting whose trace_count is unchanged keeps its remaining count, unless its key ('' for the
   * global one) is in `countSet` (trace_count given again: Triton starts the count over).
   */
  configure(global: TraceValues, perModel: ReadonlyMap<string, TraceValues>, countSet: ReadonlySet<string> = new Set()): void {
    const file = (path: string, logFrequency: number): TraceFile => {
      const key = `${logFrequency}:${path}`;
      let f = this.#files.get(key);
      if (!f) this.#files.set(key, (f = new TraceFile(path, logFrequency, this.#log)));
      return f;
    };
    const canExport = this.#export !== undefined;
    const sampling = (key: string, v: TraceValues, previous: Sampling | undefined): Sampling => {
      const s = new Sampling(v, file, this.#nextId, canExport);
      if (!countSet.has(key)) s.continueFrom(previous);
      return s;
    };
    this.#global = sampling('', global, this.#global);
    this.#models = new Map([...perModel].map(([m, v]) => [m, sampling(m, v, this.#models.get(m))]));
    this.#on = this.#global.enabled || [...this.#models.values()].some((s) => s.enabled);
  }

  /** The request itself, or a copy carrying a trace when its model's settings sample it. */
  sample(request: InferenceRequest): InferenceRequest {
    const s = this.#on ? this.#take(request) : undefined;
    if (s === undefined) return request;
    return { ...request, trace: s.otel ? otelRootSpawner(this.#export!, request.traceContext, {}) : rootSpawner(s) };
  }

  /**
   * `infer` of the request as sampled; a request traced in opentelemetry mode runs in a log
   * context, so the lines logged while it is served (when it runs alone, not batched with
   * others) carry its trace id.
   */
  infer(request: InferenceRequest, infer: (r: InferenceRequest) => Observable<InferenceResponse>): Observable<InferenceResponse> {
    const s = this.#on ? this.#take(request) : undefined;
    if (s === undefined) return infer(request);
    if (!s.otel) return infer({ ...request, trace: rootSpawner(s) });
    const log: LogContext = {};
    const traced = { ...request, trace: otelRootSpawner(this.#export!, request.traceContext, log) };
    return new Observable<InferenceResponse>((sub) => withLogContext(log, () => infer(traced).subscribe(sub)));
  }

  /** The remaining trace_count of the settings that `model` (or, without one, the server) samples with. */
  traceCount(model?: string): number | undefined {
    return ((model ? this.#models.get(model) : undefined) ?? this.#global)?.count;
  }

  #take(request: InferenceRequest): Sampling | undefined {
    const s = this.#models.get(request.model) ?? this.#global;
    return s?.enabled && s.take() ? s : undefined;
  }

  /** Write every buffered trace and close the files' arrays. */
  async close(): Promise<void> {
    this.#on = false;
    await Promise.all([...[...this.#files.values()].map((f) => f.close()), this.#export?.shutdown()]);
  }
}
