/**
 * tritonserver's `--metrics-config key=value` settings: counter_latencies (default true),
 * summary_latencies, summary_quantiles ("0.5:0.05,0.9:0.01"), histogram_latencies, and
 * histogram_buckets (ms, ours: "100,500,2000,5000" by default as Triton's).
 */
import { Errors } from '../errors.js';

export interface MetricsConfig {
  counterLatencies: boolean;
  summaryLatencies: boolean;
  /** Quantile -> allowed error. */
  summaryQuantiles: { quantile: number; error: number }[];
  histogramLatencies: boolean;
  histogramBucketsMs: number[];
  /** Seconds of history the summaries keep (prom-client maxAgeSeconds). */
  summaryMaxAgeSeconds: number;
}

const KNOWN = ['counter_latencies', 'summary_latencies', 'summary_quantiles', 'histogram_latencies', 'histogram_buckets', 'summary_max_age_seconds'];

function bool(key: string, v: string): boolean {
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw Errors.metricsConfigInvalid(`${key}=${v}`, 'expected true or false');
}

export function parseMetricsConfig(config: Record<string, string> = {}): MetricsConfig {
  const out: MetricsConfig = {
    counterLatencies: true,
    summaryLatencies: false,
    summaryQuantiles: [0.5, 0.9, 0.95, 0.99, 0.999].map((q) => ({ quantile: q, error: 0.01 })),
    histogramLatencies: false,
    histogramBucketsMs: [100, 500, 2000, 5000],
    summaryMaxAgeSeconds: 600,
  };
  for (const [key, v] of Object.entries(config)) {
    switch (key) {
      case 'counter_latencies': out.counterLatencies = bool(key, v); break;
      case 'summary_latencies': out.summaryLatencies = bool(key, v); break;
      case 'histogram_latencies': out.histogramLatencies = bool(key, v); break;
      case 'summary_quantiles':
        out.summaryQuantiles = v.split(',').map((pair) => {
          const [q, e] = pair.split(':').map(Number);
          if (!(q! > 0 && q! < 1) || !(e! >= 0 && e! < 1)) {
            throw Errors.metricsConfigInvalid('summary_quantiles', `'${pair}' must be <quantile in (0,1)>:<error in [0,1)>`);
          }
          return { quantile: q!, error: e! };
        });
        break;
      case 'histogram_buckets':
        out.histogramBucketsMs = v.split(',').map((b) => {
          const n = Number(b);
          if (!Number.isFinite(n) || n <= 0) throw Errors.metricsConfigInvalid('histogram_buckets', `'${b}' is not a positive number`);
          return n;
        });
        break;
      case 'summary_max_age_seconds': {
        const n = Number(v);
        if (!Number.isFinite(n) || n <= 0) throw Errors.metricsConfigInvalid('summary_max_age_seconds', `'${v}' is not a positive number`);
        out.summaryMaxAgeSeconds = n;
        break;
      }
      default:
        throw Errors.metricsConfigUnknown(key, KNOWN);
    }
  }
  return out;
}
