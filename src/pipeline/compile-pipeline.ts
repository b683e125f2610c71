import type { ModelConfig } from '../config/index.js';
import { isEnsemble } from '../config/index.js';
import { compileScope } from './compile-scope.js';
import { dropKnockOns } from './drop-knock-ons.js';
import type { ResolveLabels } from './inherit-labels.js';
import type { Resolve } from './pipeline-context.js';
import { q } from './pipeline-context.js';
import type { PipelinePlan } from './pipeline-plan.js';
import type { Locate, PipelineProblem } from './pipeline-problem.js';
import { createProblemSink, hasErrors } from './pipeline-problem.js';

interface CompileResult {
  /** Present only when there is no error (warnings allowed). */
  plan?: PipelinePlan;
  problems: PipelineProblem[];
}

/**
 * Compile an ensemble config into a frozen plan, reporting every problem at once. Pure: step
 * models come from `resolve` (version -1 = latest), locations from `locate`; `known` (the model
 * names of the repository) turns an unknown step model into a "did you mean"; `labels` (loaded
 * models' output labels) types conditions that need a tensor's class labels.
 */
export function compilePipeline(config: ModelConfig, resolve: Resolve, locate?: Locate, known: readonly string[] = [], labels?: ResolveLabels): CompileResult {
  const sink = createProblemSink(locate);
  if (!isEnsemble(config)) {
    sink.error('platform', `model ${q(config.name)} is not a pipeline (platform "ensemble" with ensemble_scheduling)`);
    return { problems: sink.problems };
  }
  const { plan } = compileScope({ config, steps: config.ensemble_scheduling?.step ?? [], base: 'ensemble_scheduling.step' }, { resolve, sink, known, ...(labels ? { labels } : {}) });

  // Located problems read top to bottom, like a compiler's.
  const problems = dropKnockOns(sink.problems, config).map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.col ?? 0) - (b.p.col ?? 0) || a.i - b.i)
    .map(({ p }) => p);
  if (hasErrors(problems) || !plan) return { problems };
  return { plan, problems };
}
