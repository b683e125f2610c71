/**
 * Families read from the server at scrape time rather than fed per request, so they cost the
 * request path nothing: Triton's nv_model_load_duration_secs, and per-step and per-branch figures
 * of pipelines (the statistics extension's step_stats and branch_stats, already counted by the
 * ensemble scheduler).
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
  // Control flow: only nodes that carry the figure get a series, so plain pipelines add none.
  const flowCounter = (name: string, help: string, value: (s: StepFigures) => number | undefined) => new Counter({
    name, help, labelNames, registers,
    collect() {
      this.reset();
      for (const [labels, s] of pipelineSteps(server)) {
        const v = value(s);
        if (v !== undefined) this.inc(labels, v);
      }
    },
  });
  flowCounter('tributary_pipeline_step_skipped_total', 'Runs of a pipeline that skipped the step (a false when:, a switch case not taken, a skipped input)', (s) => s.skipped);
  flowCounter('tributary_pipeline_step_cancelled_total', 'Runs of a pipeline whose return: ended the run while the step\'s call was still running', (s) => s.cancelled);
  flowCounter('tributary_pipeline_map_items_total', 'Items a pipeline map: node ran its steps for', (s) => s.items);
  flowCounter('tributary_pipeline_loop_iterations_total', 'Iterations a pipeline loop: node ran', (s) => s.iterations);
  new Counter({
    name: 'tributary_pipeline_branch_total', help: 'Runs of a pipeline that took a switch case (case = its index, or default)',
    labelNames: ['model', 'version', 'switch', 'case'], registers,
    collect() {
      this.reset();
      for (const m of server.modelStatistics().model_stats) {
        for (const b of m.branch_stats ?? []) this.inc({ model: m.name, version: m.version, switch: b.switch, case: b.case }, b.taken);
      }
    },
  });
}

interface StepFigures { count: number; ns: number; fail: number; skipped?: number; cancelled?: number; items?: number; iterations?: number }

function* pipelineSteps(server: Server): Generator<[Record<string, string>, StepFigures]> {
  for (const m of server.modelStatistics().model_stats) {
    for (const s of m.step_stats ?? []) {
      yield [{ model: m.name, version: m.version, step: s.step, step_model: s.model }, s];
    }
  }
}
