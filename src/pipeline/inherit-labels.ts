import type { PipelinePlan } from './pipeline-plan.js';

type Labels = ReadonlyMap<string, readonly string[]>;

/** Labels of a loaded model's outputs (version -1 = latest), undefined when it is not loaded. */
export type ResolveLabels = (model: string, version: number) => Labels | undefined;

/**
 * Classification labels of a pipeline's outputs: the pipeline's own `label_filename` for an
 * output, else the labels the step that produces the output has for it (a nested pipeline passes
 * on what it inherited). Resolved once at load, like the plan.
 */
export function inheritLabels(plan: PipelinePlan, own: Labels, resolve: ResolveLabels): Map<string, readonly string[]> {
  const out = new Map(own);
  for (const o of plan.outputs) {
    if (out.has(o.name)) continue;
    for (const step of plan.steps) {
      const b = step.outputs.find((x) => x.tensor === o.name);
      if (!b) continue;
      const labels = resolve(step.model, step.version === '' ? -1 : Number(step.version))?.get(b.name);
      if (labels) out.set(o.name, labels);
      break;
    }
  }
  return out;
}
