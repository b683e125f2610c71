import type { ModelConfig } from '../config/index.js';
import type { PipelineProblem } from './pipeline-problem.js';

/** The value at a config path such as `ensemble_scheduling.step[1].map.steps[0]`. */
function valueAt(root: unknown, path: string): unknown {
  let v = root;
  for (const part of path.split('.')) {
    const m = /^([^[]+)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    v = (v as Record<string, unknown> | undefined)?.[m[1]!];
    for (const i of m[2]!.match(/\d+/g) ?? []) v = (v as unknown[] | undefined)?.[Number(i)];
  }
  return v;
}

/**
 * A step whose model is unknown gives its tensors no type, so the checks that read them (a
 * condition over one, a return or map output it fills, a check of the step itself) would each
 * report a knock-on of that one problem. Those are left out: the unknown model's error stands for
 * them, and they are checked once it resolves. Problems about anything else are all kept.
 */
export function dropKnockOns(problems: readonly PipelineProblem[], config: ModelConfig): PipelineProblem[] {
  const unknown = problems.filter((p) => p.unknownModel !== undefined);
  if (unknown.length === 0) return [...problems];
  const steps = unknown.map((p) => p.path.replace(/\.model_name$/, ''));
  const tensors = new Set<string>();
  for (const path of steps) {
    const step = valueAt(config, path) as { output_map?: Record<string, string> } | undefined;
    for (const t of Object.values(step?.output_map ?? {})) tensors.add(`'${t}'`);
  }
  const knockOn = (p: PipelineProblem) => steps.some((s) => p.path === s || p.path.startsWith(`${s}.`))
    || p.message.includes('TYPE_INVALID') || [...tensors].some((t) => p.message.includes(t));
  return problems.filter((p) => p.unknownModel !== undefined || !knockOn(p));
}
