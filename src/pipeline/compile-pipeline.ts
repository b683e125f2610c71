import type { ModelConfig } from '../config/index.js';
import { isEnsemble } from '../config/index.js';
import { buildPipelineGraph } from './build-pipeline-graph.js';
import { checkStepModels } from './check-step-models.js';
import { checkTensorFlow } from './check-tensor-flow.js';
import { checkTensorTypes } from './check-tensor-types.js';
import { createPipelineContext } from './create-pipeline-context.js';
import { findStepCycles } from './find-step-cycles.js';
import { freezePlan } from './freeze-plan.js';
import type { Resolve } from './pipeline-context.js';
import { q, where } from './pipeline-context.js';
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
 * names of the repository) turns an unknown step model into a "did you mean".
 */
export function compilePipeline(config: ModelConfig, resolve: Resolve, locate?: Locate, known: readonly string[] = []): CompileResult {
  const sink = createProblemSink(locate);
  if (!isEnsemble(config)) {
    sink.error('platform', `model ${q(config.name)} is not a pipeline (platform "ensemble" with ensemble_scheduling)`);
    return { problems: sink.problems };
  }
  const ctx = createPipelineContext(config, resolve, sink);
  const g = buildPipelineGraph(ctx);

  const badBatch = checkStepModels(ctx, resolve, known);
  checkTensorFlow(ctx, g);
  checkTensorTypes(ctx, badBatch);
  for (const cycle of findStepCycles(g)) {
    // findStepCycles returns non-empty loops of indices into ctx.steps.
    const first = cycle[0]!;
    const names = [...cycle, first].map((i) => q(ctx.steps[i]!.name)).join(' -> ');
    sink.error(ctx.steps[first]!.path, `${where(ctx)}: steps form a cycle ${names}; a pipeline must be acyclic`);
  }

  // Located problems read top to bottom, like a compiler's.
  const problems = sink.problems.map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.col ?? 0) - (b.p.col ?? 0) || a.i - b.i)
    .map(({ p }) => p);
  if (hasErrors(problems)) return { problems };
  return { plan: freezePlan(ctx, g), problems };
}
