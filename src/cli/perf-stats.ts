import type { ModelStatistics } from '../client/index.js';

/** The statistics extension at one instant, every model (a pipeline's steps are other models). */
export type StatsSnapshot = ReadonlyMap<string, ModelStatistics>;

/** Server-side averages per successful request, in microseconds, over one span of windows. */
export interface ServerBreakdown {
  inferenceCount: number;
  executionCount: number;
  successCount: number;
  requestUs: number;
  queueUs: number;
  computeInputUs: number;
  computeInferUs: number;
  computeOutputUs: number;
}

export interface StepBreakdown extends ServerBreakdown { step: string; model: string; calls: number; stepUs: number }

const key = (s: ModelStatistics) => `${s.name}\u0000${s.version}`;

export function snapshot(stats: { model_stats: ModelStatistics[] }): StatsSnapshot {
  return new Map(stats.model_stats.map((s) => [key(s), s]));
}

/** gRPC's JSON form carries uint64 counters as strings; both forms read as numbers here. */
const n = (v: unknown): number => Number(v ?? 0);

function sumOver(snap: StatsSnapshot, model: string, version: string | undefined, pick: (s: ModelStatistics) => number): number {
  let total = 0;
  for (const s of snap.values()) if (s.name === model && (version === undefined || s.version === version)) total += pick(s);
  return total;
}

/** The deltas of `model` (one version, or all of them) between two snapshots. */
export function breakdown(before: StatsSnapshot, after: StatsSnapshot, model: string, version?: string): ServerBreakdown {
  const d = (pick: (s: ModelStatistics) => unknown) => sumOver(after, model, version, (s) => n(pick(s))) - sumOver(before, model, version, (s) => n(pick(s)));
  const count = d((s) => s.inference_stats.success.count);
  const per = (ns: number) => (count > 0 ? ns / count / 1000 : 0);
  return {
    inferenceCount: d((s) => s.inference_count),
    executionCount: d((s) => s.execution_count),
    successCount: count,
    requestUs: per(d((s) => s.inference_stats.success.ns)),
    queueUs: per(d((s) => s.inference_stats.queue.ns)),
    computeInputUs: per(d((s) => s.inference_stats.compute_input.ns)),
    computeInferUs: per(d((s) => s.inference_stats.compute_infer.ns)),
    computeOutputUs: per(d((s) => s.inference_stats.compute_output.ns)),
  };
}

/** A step as the model config names it (Triton's ensemble_scheduling.step). */
export interface ConfigStep { model: string; version?: string }

/**
 * A pipeline's steps: Tributary's `step_stats` (HTTP statistics) give each step's call count and
 * time; otherwise (gRPC statistics, Triton ensembles) the steps come from the config and each is
 * known by its model's own deltas only.
 */
export function stepBreakdowns(before: StatsSnapshot, after: StatsSnapshot, model: string, version: string | undefined, configSteps: readonly ConfigStep[]): StepBreakdown[] {
  const out: StepBreakdown[] = [];
  for (const s of after.values()) {
    if (s.name !== model || (version !== undefined && s.version !== version) || !s.step_stats) continue;
    const prev = before.get(key(s))?.step_stats ?? [];
    for (const st of s.step_stats) {
      const p = prev.find((x) => x.step === st.step);
      const calls = n(st.count) - n(p?.count);
      const ns = n(st.ns) - n(p?.ns);
      out.push({ step: st.step, model: st.model, calls, stepUs: calls > 0 ? ns / calls / 1000 : 0, ...breakdown(before, after, st.model, st.version) });
    }
  }
  if (out.length > 0) return out;
  return configSteps.map((st) => {
    const b = breakdown(before, after, st.model, st.version);
    return { step: st.model, model: st.model, calls: b.successCount, stepUs: b.requestUs, ...b };
  });
}
