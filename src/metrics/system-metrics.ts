/**
 * Host metrics Triton exports (nv_cpu_utilization, nv_cpu_memory_*), read at scrape time, plus
 * this process's CPU seconds (the benchmark divides its difference by requests served).
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

export function registerSystemMetrics(registry: Registry): void {
  let last = cpuTimes();
  new Gauge({
    name: 'nv_cpu_utilization', help: 'CPU utilization rate [0.0 - 1.0]', registers: [registry],
    collect() {
      const now = cpuTimes();
      const total = now.total - last.total;
      this.set(total > 0 ? 1 - (now.idle - last.idle) / total : 0);
      last = now;
    },
  });
  new Gauge({
    name: 'nv_cpu_memory_total_bytes', help: 'CPU total memory (RAM), in bytes', registers: [registry],
    collect() { this.set(totalmem()); },
  });
  new Gauge({
    name: 'nv_cpu_memory_used_bytes', help: 'CPU used memory (RAM), in bytes', registers: [registry],
    collect() { this.set(memoryUsed()); },
  });
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
}
