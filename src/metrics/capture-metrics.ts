/**
 * Data capture's counters (tributary families; Triton has no capture): records taken into the
 * queue, written by each sink, dropped by place, and the queue's depth. Read from the capture's own
 * counts at scrape time, so the request path pays nothing for them.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Capture } from '../capture/index.js';

export function registerCaptureMetrics(registry: Registry, capture: Capture): void {
  const registers = [registry];
  const labelled = (counter: Counter<string>, label: string, values: Record<string, number>) => {
    counter.reset();
    for (const [k, v] of Object.entries(values)) counter.inc({ [label]: k }, v);
  };
  new Counter({
    name: 'tributary_capture_captured_total', help: 'Capture records taken into the queue (a request and each of its steps, map items, loop iterations and BLS calls is one record)', registers,
    collect() { this.reset(); this.inc(capture.counts().captured); },
  });
  new Counter({
    name: 'tributary_capture_written_total', help: 'Capture records written by each sink (dir: lines, redis: stream entries, url: CloudEvents delivered)', labelNames: ['sink'], registers,
    collect() { labelled(this, 'sink', capture.counts().written); },
  });
  new Counter({
    name: 'tributary_capture_dropped_total', help: 'Capture records dropped instead of blocking a request, by where: queue (full), request (past request-records), failures (past failures per second), error (could not be recorded), or a sink (dir, url, redis) that could not keep up or failed', labelNames: ['where'], registers,
    collect() { labelled(this, 'where', capture.counts().dropped); },
  });
  new Gauge({
    name: 'tributary_capture_queued', help: 'Capture records waiting for the sinks', registers,
    collect() { this.set(capture.queued()); },
  });
}
