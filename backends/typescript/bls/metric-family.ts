import { current, host, onLoop } from './host-channel.js';
import { ModelError } from './model-error.js';
import { METRIC_ADD, METRIC_OBSERVE, METRIC_SET, type WireError } from './wire.js';

/**
 * Triton's custom metrics (pb_utils.MetricFamily and Metric). Declaring a family or a metric asks
 * the host at once, so a refused name or label set throws where the script declares it. Updates
 * do not cross to the host one by one: each metric keeps what changed since the last flush (a
 * counter's sum of increments, a gauge's last value, a histogram's per-bucket counts), and the
 * changes go in one fire-and-forget callback a microtask after the first of them (so one
 * synchronous run of the script, a loop of a million increments included, costs one callback that
 * does not wait for the host) or at FLUSH_METRICS changed metrics.
 */
export type MetricKind = 'counter' | 'gauge' | 'histogram';

export interface MetricFamilyInit {
  name: string;
  description: string;
  kind: MetricKind;
}

export interface MetricInit {
  labels?: Readonly<Record<string, string>>;
  buckets?: readonly number[];
}

const FLUSH_METRICS = 1024;
const dirty: Pending[] = [];
let scheduled = false;

/** Send what the metrics changed since the last flush (also at the end of every call: entry.ts). */
export function flushMetrics(): void {
  scheduled = false;
  if (!dirty.length) return;
  const out: number[] = [];
  for (const m of dirty.splice(0)) m.drain(out);
  // Tagged with the running call: the host drops what a call it stopped had flushed.
  if (onLoop.now) host().metricsNow(out, current.callId);
  else host().metrics(out, current.callId);
}

/**
 * Forget what changed since the last flush. The host calls this after it stopped a run on the main
 * thread to re-run it on the isolate thread (script-isolate.ts): the stopped run's changes would
 * otherwise be counted twice, and its flush, due in a microtask that never ran, left `scheduled` set.
 */
export function discardMetrics(): void {
  for (const m of dirty.splice(0)) m.reset();
  scheduled = false;
}

function touched(m: Pending): void {
  if (dirty.push(m) >= FLUSH_METRICS) flushMetrics();
  else if (!scheduled) {
    scheduled = true;
    void Promise.resolve().then(flushMetrics);
  }
}

function registered(r: number | WireError): number {
  if (typeof r === 'number') return r;
  throw ModelError.fromWire(r);
}

function unsupported(kind: MetricKind, op: string): ModelError {
  // Triton's words (core metric_family.cc).
  return new ModelError(`TRITONSERVER_METRIC_KIND_${kind.toUpperCase()} does not support ${op}`, 'UNSUPPORTED', 'TRB_SCRIPT_METRIC_UNSUPPORTED');
}

function finite(v: unknown, op: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ModelError(`metric ${op}: the value must be a finite number, got ${String(v)}`, 'INVALID_ARG', 'TRB_SCRIPT_METRIC_INVALID');
  return v;
}

/** What a metric changed since the last flush, kept off the object scripts see. */
class Pending {
  readonly kind: MetricKind;
  readonly id: number;
  dirty = false;
  /** Counter and gauge: the change since the last flush; a gauge that was set holds the value. */
  value = 0;
  set = false;
  perBucket: Float64Array | undefined;
  sum = 0;
  count = 0;

  constructor(kind: MetricKind, id: number) {
    this.kind = kind;
    this.id = id;
  }

  touch(): void {
    if (this.dirty) return;
    this.dirty = true;
    touched(this);
  }

  /** Forget the change since the last flush. */
  reset(): void {
    this.dirty = false;
    this.value = 0;
    this.set = false;
    this.perBucket?.fill(0);
    this.sum = 0;
    this.count = 0;
  }

  /** Append the change since the last flush to `out`, and forget it. */
  drain(out: number[]): void {
    this.dirty = false;
    if (this.kind === 'histogram') {
      const per = this.perBucket!;
      out.push(METRIC_OBSERVE, this.id, this.sum, this.count, per.length);
      for (let i = 0; i < per.length; i++) out.push(per[i]!);
      per.fill(0);
      this.sum = 0;
      this.count = 0;
      return;
    }
    out.push(this.set ? METRIC_SET : METRIC_ADD, this.id, this.value);
    this.value = 0;
    this.set = false;
  }
}

/** One label set of a family, made by `family.metric()`. */
export class Metric {
  readonly kind: MetricKind;
  readonly #p: Pending;
  readonly #buckets: readonly number[];

  constructor(kind: MetricKind, id: number, buckets: readonly number[]) {
    this.kind = kind;
    this.#p = new Pending(kind, id);
    this.#buckets = buckets;
  }

  /** Counters: add a non-negative amount. Gauges: add any amount. */
  increment(value: number): void {
    const v = finite(value, 'increment');
    if (this.kind === 'histogram') throw unsupported(this.kind, 'Increment');
    if (this.kind === 'counter' && v < 0) {
      // Triton's words (core metric_family.cc).
      throw new ModelError('TRITONSERVER_METRIC_KIND_COUNTER can only be incremented monotonically by non-negative values.', 'INVALID_ARG', 'TRB_SCRIPT_METRIC_INVALID');
    }
    this.#p.value += v;
    this.#p.touch();
  }

  /** Gauges: set the value. */
  set(value: number): void {
    const v = finite(value, 'set');
    if (this.kind !== 'gauge') throw unsupported(this.kind, 'Set');
    this.#p.value = v;
    this.#p.set = true;
    this.#p.touch();
  }

  /** Histograms: count one observation in its bucket. */
  observe(value: number): void {
    const v = finite(value, 'observe');
    if (this.kind !== 'histogram') throw unsupported(this.kind, 'Observe');
    const b = this.#buckets;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    const p = this.#p;
    const per = (p.perBucket ??= new Float64Array(b.length + 1));
    per[i] = per[i]! + 1;
    p.sum += v;
    p.count++;
    p.touch();
  }
}

/**
 * A custom metric family, shown on the server's metrics endpoint with the model and version as
 * labels. The same name from another model must have the same kind and description.
 */
export class MetricFamily {
  readonly name: string;
  readonly description: string;
  readonly kind: MetricKind;
  readonly #id: number;

  constructor(init: MetricFamilyInit) {
    if (!init || typeof init !== 'object') throw new ModelError('MetricFamily needs { name, description, kind }', 'INVALID_ARG', 'TRB_SCRIPT_METRIC_INVALID');
    this.#id = registered(host().metricFamily(init.name, init.description, init.kind));
    this.name = init.name;
    this.description = init.description;
    this.kind = init.kind;
  }

  /** The metric of this family with these labels (the same labels give the same series); histograms need `buckets`. */
  metric(init: MetricInit = {}): Metric {
    const labels: Record<string, string> = {};
    if (init.labels !== undefined && init.labels !== null) {
      if (typeof init.labels !== 'object') throw new ModelError(`metric family '${this.name}': labels must be an object of label name to string value`, 'INVALID_ARG', 'TRB_SCRIPT_METRIC_INVALID');
      // A plain copy: the host takes data, not getters or a prototype's fields.
      for (const [k, v] of Object.entries(init.labels)) Object.defineProperty(labels, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    const buckets = init.buckets === undefined || init.buckets === null ? null : Array.from(init.buckets, Number);
    // Triton's words (core metric_family.cc), then ours; the host checks the same.
    if (this.kind === 'histogram' && !buckets) {
      throw new ModelError(`Bucket boundaries not found in Metric args.; histogram family '${this.name}' needs buckets: [upper bounds, increasing]`, 'INVALID_ARG', 'TRB_SCRIPT_METRIC_INVALID');
    }
    if (this.kind !== 'histogram' && buckets) {
      throw new ModelError(`Unexpected args found in ${this.kind} Metric constructor.; only a histogram family's metrics take buckets ('${this.name}' is a ${this.kind})`, 'INVALID_ARG', 'TRB_SCRIPT_METRIC_INVALID');
    }
    const id = registered(host().metric(this.#id, labels, buckets));
    return new Metric(this.kind, id, buckets ?? []);
  }
}
