/**
 * The capture: which top-level requests are recorded (the edge hands it every one), the queue, and
 * the sinks that drain it. A request of a model in scope is sampled at the model's rate (its config
 * parameter `capture_rate`, else `rate=`); a sampled one is recorded whole, any other still carries a
 * tap so that, should it fail, its failing path is recorded (at most `failures=` per second).
 */
import { Observable } from 'rxjs';
import type { ModelConfig } from '../config/index.js';
import type { InferenceRequest, InferenceResponse } from '../inference/index.js';
import { createLogger, type Logger } from '../logger.js';
import { CaptureQueue, type CaptureCounts } from './capture-queue.js';
import type { CaptureSettings } from './capture-settings.js';
import { WrittenRequests, recordJson, type CapturedRecord } from './captured-record.js';
import { CloudEventsSink } from './cloud-events-sink.js';
import { openFileSink } from './file-sink.js';
import { keepReadable } from './record-tensor.js';
import { RedisSink } from './redis-sink.js';
import { RequestCapture, type Hop } from './request-capture.js';

/** The model config parameter that sets a model's own capture rate (0..1). */
const CAPTURE_RATE_PARAMETER = 'capture_rate';

export interface CaptureSink {
  /** `dir`, `url` or `redis`: the label of its written and dropped counts. */
  readonly name: string;
  /** Takes a batch (never waits, never throws); what it cannot hold it drops and counts. */
  write(records: readonly CapturedRecord[], lines: readonly string[]): void;
  /** Writes what it holds (bounded in time), then lets go of its files and connections. */
  close(): Promise<void>;
}

export interface Capture {
  /** The edge's one call per top-level request: `run(request)`, recorded when the settings say so. */
  tap(request: InferenceRequest, run: (request: InferenceRequest) => Observable<InferenceResponse>): Observable<InferenceResponse>;
  counts(): CaptureCounts;
  /** Records still waiting for the sinks. */
  queued(): number;
  /** Hands every queued record to the sinks, waits for them (bounded), closes them. */
  close(): Promise<void>;
}

export interface CaptureOptions {
  /** The served config of a model (for its `capture_rate`); undefined when it has none or is unknown. */
  modelConfig?: (model: string) => ModelConfig | undefined;
  log?: Logger;
  /** Sinks to use instead of the settings' (tests). */
  sinks?: readonly CaptureSink[];
}

export async function createCapture(settings: CaptureSettings, options: CaptureOptions = {}): Promise<Capture> {
  const log = options.log ?? createLogger('capture');
  let sinks: readonly CaptureSink[] = [];
  const written = new WrittenRequests();
  const queue = new CaptureQueue({ records: settings.queueRecords, bytes: settings.queueBytes }, (batch) => {
    const lines = batch.map((r) => recordJson(r, written));
    for (const s of sinks) s.write(batch, lines);
  });
  sinks = options.sinks ?? await openSinks(settings, queue, log);
  const rates = modelRates(settings, options.modelConfig, log);
  const admitFailure = failureBudget(settings.failures);
  const o = { queue, maxBytes: settings.maxBytes, redact: settings.redact, requestRecords: settings.requestRecords, admitFailure };
  /** Per model: the fraction owed so far; a request is sampled each time it reaches 1 (exact rates, first request sampled). */
  const owed = new Map<string, number>();
  const sample = (model: string, rate: number): boolean => {
    if (rate <= 0) return false;
    const due = (owed.get(model) ?? 1 - rate) + rate;
    const hit = due >= 1 - 1e-9;
    owed.set(model, hit ? due - 1 : due);
    return hit;
  };
  return {
    tap(request, run) {
      const rate = rates(request.model);
      if (rate === undefined) return run(request);
      const sampled = sample(request.model, rate);
      if (!sampled && settings.failures === 0) return run(request);
      let root: Hop;
      try {
        root = new RequestCapture(o, sampled).root(request);
        if (sampled) keepReadable(request.inputs);
      } catch {
        queue.drop('error'); // a request whose tensors cannot be read is served uncaptured
        return run(request);
      }
      request.capture = root;
      return watched(run(request), root);
    },
    counts: () => queue.counts,
    queued: () => queue.length,
    async close() {
      queue.close();
      await Promise.all(sinks.map((s) => s.close().catch(() => undefined)));
    },
  };
}

/** The request's responses, told to its root record as they pass; the record ends with the stream. */
function watched(source: Observable<InferenceResponse>, root: Hop): Observable<InferenceResponse> {
  return new Observable<InferenceResponse>((subscriber) => {
    let ended = false;
    const sub = source.subscribe({
      next: (r) => {
        root.respond(r.outputs, r.version);
        subscriber.next(r);
      },
      error: (e: unknown) => {
        ended = true;
        root.end(e);
        subscriber.error(e);
      },
      complete: () => {
        ended = true;
        root.end();
        subscriber.complete();
      },
    });
    return () => {
      sub.unsubscribe();
      if (!ended) root.cancel();
    };
  });
}

/**
 * The sampling rate of a model's requests, undefined when they are out of scope. A config's
 * `capture_rate` brings its model in scope whatever `models=` says; a bad value is logged once per
 * loaded config and ignored.
 */
function modelRates(settings: CaptureSettings, configOf: CaptureOptions['modelConfig'], log: Logger): (model: string) => number | undefined {
  const parsed = new WeakMap<ModelConfig, number | undefined>();
  const own = (model: string): number | undefined => {
    let config: ModelConfig | undefined;
    try {
      config = configOf?.(model);
    } catch {
      return undefined; // an unknown model: its request fails on its own
    }
    if (!config) return undefined;
    if (parsed.has(config)) return parsed.get(config);
    const raw = config.parameters?.[CAPTURE_RATE_PARAMETER]?.string_value;
    let rate: number | undefined;
    if (raw !== undefined) {
      const n = Number(raw);
      if (raw.trim() !== '' && n >= 0 && n <= 1) rate = n;
      else log.warn(`model '${model}': parameter ${CAPTURE_RATE_PARAMETER} = '${raw}' is not a fraction from 0 to 1; --capture-config's rate applies`);
    }
    parsed.set(config, rate);
    return rate;
  };
  const all = settings.models.size === 0;
  return (model) => own(model) ?? (all || settings.models.has(model) ? settings.rate : undefined);
}

/** At most `perSecond` unsampled failed requests are recorded in any one second. */
function failureBudget(perSecond: number): () => boolean {
  let second = 0;
  let used = 0;
  return () => {
    const now = Math.floor(performance.now() / 1000);
    if (now !== second) {
      second = now;
      used = 0;
    }
    return used++ < perSecond;
  };
}

async function openSinks(settings: CaptureSettings, queue: CaptureQueue, log: Logger): Promise<CaptureSink[]> {
  const sinks: CaptureSink[] = [];
  try {
    if (settings.dir !== undefined) sinks.push(await openFileSink(settings.dir, settings, queue, log));
    if (settings.url !== undefined) sinks.push(new CloudEventsSink(settings.url, settings, queue, log));
    if (settings.redis !== undefined) sinks.push(await RedisSink.open(settings, queue, log));
  } catch (e) {
    for (const s of sinks) await s.close().catch(() => undefined);
    throw e;
  }
  return sinks;
}
