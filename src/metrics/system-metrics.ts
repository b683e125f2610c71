/**
 * Host metrics Triton exports (nv_cpu_utilization, nv_cpu_memory_*), sampled every metrics
 * interval, plus this process's CPU seconds, read at scrape time (the benchmark divides its
 * difference by requests served).
 */
import { cpus, freemem, totalmem } from 'node:os';
import { readFileSync } from 'node:fs';
import { Gauge, type Registry } from 'prom-client';

function cpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

/** MemAvailable counts reclaimable cache as free, as `free` does; os.freemem() otherwise. */
function memoryUsed(): number {
  try {
    const m = /MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (m) return totalmem() - Number(m[1]) * 1024;
  } catch { /* not Linux */ }
  return totalmem() - freemem();
}

export interface SystemMetricsOptions {
  /** tritonserver's --allow-cpu-metrics (default true): the nv_cpu_* families. */
  cpu?: boolean;
  /** tritonserver's --metrics-interval-ms (default 2000): how often the nv_cpu_* gauges are sampled. */
  intervalMs?: number;
}

/** Triton's default --metrics-interval-ms. */
export const METRICS_INTERVAL_MS = 2000;

/**
 * Registers the host gauges; returns a function that stops their sampling. As in Triton, the
 * nv_cpu_* gauges hold the last sample (taken every `intervalMs`), so nv_cpu_utilization is the
 * busy share over one interval, whatever the scrape rate; the first sample averages since boot.
 */
export function registerSystemMetrics(registry: Registry, o: SystemMetricsOptions = {}): () => void {
  new Gauge({
    name: 'tributary_process_cpu_seconds_total', help: 'User + system CPU seconds used by this server process',
    labelNames: ['mode'], registers: [registry],
    collect() {
      const u = process.cpuUsage();
      this.set({ mode: 'user' }, u.user / 1e6);
      this.set({ mode: 'system' }, u.system / 1e6);
      this.set({ mode: 'total' }, (u.user + u.system) / 1e6);
    },
  });
  if (o.cpu === false) return () => undefined;
  const utilization = new Gauge({ name: 'nv_cpu_utilization', help: 'CPU utilization rate [0.0 - 1.0]', registers: [registry] });
  const total = new Gauge({ name: 'nv_cpu_memory_total_bytes', help: 'CPU total memory (RAM), in bytes', registers: [registry] });
  const used = new Gauge({ name: 'nv_cpu_memory_used_bytes', help: 'CPU used memory (RAM), in bytes', registers: [registry] });
  let last = { idle: 0, total: 0 };
  const sample = () => {
    const now = cpuTimes();
    const span = now.total - last.total;
    utilization.set(span > 0 ? 1 - (now.idle - last.idle) / span : 0);
    last = now;
    total.set(totalmem());
    used.set(memoryUsed());
  };
  sample();
  const timer = setInterval(sample, o.intervalMs ?? METRICS_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
