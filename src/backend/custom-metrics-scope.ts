/** The three kinds of Triton's custom metric families (TRITONSERVER_MetricKind). */
export type MetricKind = 'counter' | 'gauge' | 'histogram';

/**
 * The custom metrics of one loaded model version (Triton's MetricFamily and Metric, as its
 * Python backend offers them to scripts). Registration checks everything and throws a
 * TributaryError the script sees; updates name a series this scope registered and are dropped
 * silently when they do not fit it (the sandbox has checked them already: a bad one is a forged
 * one). Closed when the model version unloads: its series leave /metrics.
 */
export interface CustomMetricsScope {
  /** Register, or join, the family `name` (arguments as the script gave them, checked here); its id. */
  family(name: unknown, description: unknown, kind: unknown): number;
  /** The series of family `familyId` with these labels (the server adds model and version); its id. */
  metric(familyId: number, labels: unknown, buckets: unknown): number;
  /** Counters and gauges: add `delta`. */
  add(seriesId: number, delta: number): void;
  /** Gauges: set the value. */
  set(seriesId: number, value: number): void;
  /** Histograms: `count` observations summing to `sum`, `perBucket[i]` of them in bucket i (the last is +Inf). */
  observe(seriesId: number, sum: number, count: number, perBucket: readonly number[]): void;
  close(): void;
}
