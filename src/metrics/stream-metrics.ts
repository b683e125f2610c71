/**
 * Streamed responses waiting for their clients (gRPC ModelStreamInfer, SSE), per protocol: read
 * from the front ends' stream account at scrape time, so they cost a response nothing.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

interface Figures { bytes: number; paused: number; pauses: number; overflows: number }

/** The front ends' account (src/frontend/stream's StreamBudget), as far as metrics read it. */
export interface StreamMetricsSource {
  readonly figures: Readonly<Record<string, Readonly<Figures>>>;
}

export function registerStreamMetrics(registry: Registry, source: StreamMetricsSource): void {
  const registers = [registry];
  const labelNames = ['protocol'];
  const gauge = (name: string, help: string, value: (f: Figures) => number) => new Gauge({
    name, help, labelNames, registers,
    collect() {
      for (const [protocol, f] of Object.entries(source.figures)) this.set({ protocol }, value(f));
    },
  });
  const counter = (name: string, help: string, value: (f: Figures) => number) => new Counter({
    name, help, labelNames, registers,
    collect() {
      this.reset();
      for (const [protocol, f] of Object.entries(source.figures)) this.inc({ protocol }, value(f));
    },
  });
  gauge('tributary_stream_buffer_bytes', 'Bytes of streamed responses waiting for their clients (each response counts 256 bytes of bookkeeping on top)', (f) => f.bytes);
  gauge('tributary_stream_paused', 'Streams whose producers are paused now because their client is not taking responses', (f) => f.paused);
  counter('tributary_stream_pauses_total', 'Times a stream paused its producers because its client was not taking responses', (f) => f.pauses);
  counter('tributary_stream_overflow_total', 'Streamed requests failed with TRB_STREAM_BUFFER_FULL: their producer could not wait and their stream was full', (f) => f.overflows);
}
