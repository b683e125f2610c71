import type { ModelConfig } from '../config/index.js';
import { closest, isEnsemble, pipelineStepModels } from '../config/index.js';
import type { PipelineContext, Resolve, StepInfo } from './pipeline-context.js';
import { q, where } from './pipeline-context.js';

const list = (names: readonly string[]) => names.map(q).join(', ') || '(none)';

/**
 * Checks each step against its own model, in Triton's words where it makes the check (core
 * ensemble_utils.cc), ours after "; ": the model exists (and is not the pipeline itself),
 * mapped names exist on it, its required inputs are mapped, its max_batch_size (unless 0) is at
 * least the pipeline's. Returns the steps whose batching disagrees, so the dims check does not
 * report them twice.
 */
export function checkStepModels(ctx: PipelineContext, resolve: Resolve, known: readonly string[] = []): Set<number> {
  const { sink, config } = ctx;
  const badBatch = new Set<number>();
  if (ctx.steps.length === 0) {
    sink.error('ensemble_scheduling.step', `${where(ctx)}: ${ctx.body ? `the ${ctx.body} body` : 'ensemble_scheduling'} has no steps; add at least one step`);
  }
  // A map or loop body is named `pipeline/map#1`: its steps must not call the pipeline either.
  const pipeline = ctx.name.split('/')[0]!;
  for (const s of ctx.steps) {
    if (s.kind !== 'model') continue;
    if (s.model === pipeline) {
      sink.error(`${s.path}.model_name`, `${where(ctx, s)}: a pipeline cannot call itself`);
      continue;
    }
    const m = s.config;
    if (!m) {
      const v = s.version === -1 ? '' : ` version ${s.version}`;
      const near = closest(s.model, known.filter((n) => n !== ctx.name));
      // Triton's words (core model_repository_manager.cc) for a step model it cannot find.
      sink.unknownModel(`${s.path}.model_name`, `ensemble ${ctx.name} contains models that are not available or ambiguous: ${s.model}; ${where(ctx, s)}: unknown model ${q(s.model)}${v}; it is not in the model repository (or not loaded)${near ? `; did you mean ${q(near)}?` : ''}`, s.model);
      continue;
    }
    const via = callsPipeline(m, pipeline, resolve, new Set());
    if (via) sink.error(`${s.path}.model_name`, `${where(ctx, s)}: model ${q(s.model)} calls pipeline ${q(pipeline)} again (through ${via}); pipelines cannot recurse`);
    checkNames(ctx, s, m);
    // Triton (ensemble_utils.cc) lets a batching pipeline hold a non-batching step: the dims
    // check compares shapes with and without the batch dim, and the run adds or strips it.
    if (m.max_batch_size !== 0 && m.max_batch_size < config.max_batch_size) {
      badBatch.add(s.index);
      sink.error(`${s.path}.model_name`, `ensemble ${ctx.name} allows maximum batch size ${config.max_batch_size}, but it contains model ${s.model} which only allows maximum batch size to be ${m.max_batch_size}; ${where(ctx, s)}: lower the pipeline's max_batch_size or raise the model's`);
    }
    if (m.model_transaction_policy?.decoupled && !config.model_transaction_policy?.decoupled) {
      sink.warn(`${s.path}.model_name`, `${where(ctx, s)}: model ${q(s.model)} is decoupled but the pipeline is not; a request fails if this step sends more than one response (set model_transaction_policy { decoupled: true } on the pipeline to stream them)`);
    }
  }
  return badBatch;
}

function checkNames(ctx: PipelineContext, s: StepInfo, m: ModelConfig): void {
  const inputs = new Set(m.input.map((t) => t.name));
  const outputs = new Set(m.output.map((t) => t.name));
  for (const [key, tensor] of s.inputMap) {
    if (!inputs.has(key)) {
      ctx.sink.error(`${s.path}.input_map.${key}`, `in ensemble ${ctx.name}, ensemble tensor ${tensor} is mapping to non-existing input ${key} in model ${s.model}; ${where(ctx, s)}: model ${q(s.model)} has no input ${q(key)}; its inputs are ${list([...inputs])}`);
    }
  }
  for (const [key, tensor] of s.outputMap) {
    if (!outputs.has(key)) {
      ctx.sink.error(`${s.path}.output_map.${key}`, `in ensemble ${ctx.name}, ensemble tensor ${tensor} is mapped from non-existing output ${key} in model ${s.model}; ${where(ctx, s)}: model ${q(s.model)} has no output ${q(key)}; its outputs are ${list([...outputs])}`);
    }
  }
  const mapped = new Set(s.inputMap.map(([k]) => k));
  for (const t of m.input) {
    if (!t.optional && !mapped.has(t.name)) {
      ctx.sink.error(`${s.path}.input_map`, `in ensemble ${ctx.name}, input ${t.name} in model ${s.model} is not mapped to any ensemble tensors; ${where(ctx, s)}: add input ${q(t.name)} to input_map`);
    }
  }
}

/** The chain of nested pipelines through which `config` reaches `target`, if it does. */
function callsPipeline(config: ModelConfig, target: string, resolve: Resolve, seen: Set<string>): string | undefined {
  if (!isEnsemble(config) || seen.has(config.name)) return undefined;
  seen.add(config.name);
  // Nested steps (switch cases, map and loop bodies) call models too; any version will do here.
  for (const model of pipelineStepModels(config)) {
    if (model === target) return q(config.name);
    const inner = resolve(model, -1);
    const via = inner && callsPipeline(inner, target, resolve, seen);
    if (via) return `${q(config.name)} -> ${via}`;
  }
  return undefined;
}
