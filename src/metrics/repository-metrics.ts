/**
 * Families read from the server at scrape time rather than fed per request, so they cost the
 * request path nothing: Triton's nv_model_load_duration_secs, and per-step figures of pipelines
 * (the statistics extension's step_stats, already counted by the ensemble scheduler).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Server } from '../server/index.js';

/** The server's load times, where it keeps them (LocalServer does; a remote facade may not). */
export type MetricsSource = Server & { modelLoadMs?(name: string, version: string): number | undefined };

export function registerRepositoryMetrics(registry: Registry, server: MetricsSource): void {
  const registers = [registry];
  const load = server.modelLoadMs?.bind(server);
  if (load) {
    new Gauge({
      name: 'nv_model_load_duration_secs', help: 'Model load time in seconds', labelNames: ['model', 'version'], registers,
      async collect() {
        this.reset();
        for (const m of await server.repositoryIndex({ ready: true })) {
          const ms = load(m.name, m.version);
          if (ms !== undefined) this.set({ model: m.name, version: m.version }, ms / 1000);
        }
      },
    });
  }
  // step_model names the step's model so its own families (queue, compute) can be joined per step.
  const labelNames = ['model', 'version', 'step', 'step_model'];
  const stepCounter = (name: string, help: string, value: (s: StepFigures) => number) => new Counter({
    name, help, labelNames, registers,
    collect() {
      this.reset();
      for (const [labels, s] of pipelineSteps(server)) this.inc(labels, value(s));
    },
  });
  stepCounter('tributary_pipeline_step_success', 'Successful executions of a pipeline step', (s) => s.count);
  stepCounter('tributary_pipeline_step_failure', 'Failed executions of a pipeline step', (s) => s.fail);
  stepCounter('tributary_pipeline_step_duration_us', 'Cumulative time of successful pipeline step executions, from the step starting to its last response (includes the step model\'s queue), in microseconds', (s) => s.ns / 1000);
}

interface StepFigures { count: number; ns: number; fail: number }

function* pipelineSteps(server: Server): Generator<[Record<string, string>, StepFigures]> {
  for (const m of server.modelStatistics().model_stats) {
    for (const s of m.step_stats ?? []) {
      yield [{ model: m.name, version: m.version, step: s.step, step_model: s.model }, s];
    }
  }
}
