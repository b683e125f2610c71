import type { ModelConfig } from '../config/index.js';
import { dimsCompatible, formatShape, fromConfigType, toConfigType, type DataType } from '../tensor/index.js';
import type { Consumer, PipelineContext, Producer } from './pipeline-context.js';
import { describeProducer, q, where } from './pipeline-context.js';

interface TensorType {
  datatype: string;
  /** The config's dims, without any batch dim. */
  dims: readonly number[];
  /** Dims as a request sees them: a batching model has an implicit leading batch dim (-1). */
  full: readonly number[];
}

type ConfigTensor = { data_type: string; dims: number[]; reshape?: { shape: number[] } };

function typeOf(model: ModelConfig, t: ConfigTensor | undefined, useReshape = false): TensorType | undefined {
  if (!t) return undefined;
  // Triton compares a pipeline's own inputs and outputs by their reshape when they have one.
  const dims = useReshape && t.reshape ? t.reshape.shape : t.dims;
  return {
    datatype: fromConfigType(t.data_type) ?? t.data_type,
    dims,
    full: model.max_batch_size > 0 ? [-1, ...dims] : dims,
  };
}

function producerType(ctx: PipelineContext, p: Producer): TensorType | undefined {
  if (p.kind === 'input') return typeOf(ctx.config, ctx.config.input[p.index], true);
  const m = ctx.steps[p.step]!.config;
  return m && typeOf(m, m.output.find((o) => o.name === p.key));
}

function consumerType(ctx: PipelineContext, c: Consumer): TensorType | undefined {
  if (c.kind === 'output') return typeOf(ctx.config, ctx.config.output[c.index], true);
  const m = ctx.steps[c.step]!.config;
  return m && typeOf(m, m.input.find((i) => i.name === c.key));
}

const show = (t: TensorType) => `${t.datatype} ${formatShape(t.full)}`;

/**
 * Producer and consumer of each tensor must agree on datatype and dims (-1 matches any size).
 * As in Triton's ValidateTensorConsistency, dims agree when they match either without or with
 * the batch dim: a batching [4] meets a non-batching [-1,4] (or [4]), and the run adds or strips
 * a batch dim of 1 between them (run-plan.ts). Skipped where a name or model is already reported
 * missing, or batching already disagrees.
 */
export function checkTensorTypes(ctx: PipelineContext, skipSteps: ReadonlySet<number>): void {
  for (const [tensor, consumers] of ctx.consumers) {
    const producers = (ctx.producers.get(tensor) ?? []).filter((p) => !(p.kind === 'step' && skipSteps.has(p.step)));
    for (const p of producers) {
      const made = producerType(ctx, p);
      if (!made) continue;
      for (const c of consumers) {
        if (c.kind === 'step' && skipSteps.has(c.step)) continue;
        const want = consumerType(ctx, c);
        const what = want && disagree(want, made);
        if (!want || !what) continue;
        const from = describeProducer(ctx, p);
        const producer = p.kind === 'input' ? ctx.name : ctx.steps[p.step]!.model;
        if (c.kind === 'output') {
          ctx.sink.error(`output[${c.index}]`, `${inconsistent(ctx.name, tensor, what, want, ctx.name, made, producer)}; ${where(ctx)}: output ${q(tensor)} is declared ${show(want)} but ${from} produces ${show(made)}`);
        } else {
          const s = ctx.steps[c.step]!;
          ctx.sink.error(`${s.path}.input_map.${c.key}`, `${inconsistent(ctx.name, tensor, what, made, producer, want, s.model)}; ${where(ctx, s)}: input ${q(c.key)} expects ${show(want)} but tensor ${q(tensor)} from ${from} is ${show(made)}`);
        }
      }
    }
  }
  checkBranchTypes(ctx, skipSteps);
}

/** Triton's words for a tensor two models see differently (core ensemble_utils.cc, ValidateTensorConsistency). */
function inconsistent(ensemble: string, tensor: string, what: string, lhs: TensorType, lhsModel: string, rhs: TensorType, rhsModel: string): string {
  const type = (t: TensorType) => toConfigType(t.datatype as DataType);
  const detail = what === 'inconsistent data type'
    ? `${type(lhs)} is inferred from model ${lhsModel} while ${type(rhs)} is inferred from model ${rhsModel}`
    : `${formatShape(lhs.full)} is inferred from model ${lhsModel} while ${formatShape(rhs.full)} is inferred from model ${rhsModel}`;
  return `in ensemble ${ensemble}, ensemble tensor ${tensor}: ${what}: ${detail}`;
}

function disagree(want: TensorType, made: TensorType): string | undefined {
  return want.datatype !== made.datatype ? 'inconsistent data type'
    : dimsCompatible(want.dims, made.dims) || dimsCompatible(want.full, made.full) ? undefined : 'inconsistent shape';
}

/** A tensor produced in several switch cases must have one type, whatever case ran. */
function checkBranchTypes(ctx: PipelineContext, skipSteps: ReadonlySet<number>): void {
  for (const [tensor, producers] of ctx.producers) {
    const typed = producers.filter((p) => p.kind === 'step' && !skipSteps.has(p.step))
      .map((p) => ({ p, t: producerType(ctx, p) })).filter((x) => x.t);
    const first = typed[0];
    for (const other of typed.slice(1)) {
      const what = disagree(first!.t!, other.t!);
      if (!what || other.p.kind !== 'step') continue;
      const s = ctx.steps[other.p.step]!;
      ctx.sink.error(`${s.path}`, `${where(ctx, s)}: tensor ${q(tensor)} is ${show(other.t!)} here but ${show(first!.t!)} from ${describeProducer(ctx, first!.p)} (${what}); every branch must give it one datatype and shape`);
    }
  }
}
