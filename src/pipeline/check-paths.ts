import { alwaysTrue } from './flatten-steps.js';
import type { PipelineContext, StepInfo } from './pipeline-context.js';
import { q, where } from './pipeline-context.js';

/** Switch decisions assumed on the way to a point: switch id -> case index (-1 = default). */
type Assumed = ReadonlyMap<number, number>;

const cases = (s: { guards: StepInfo['guards'] }) => s.guards.filter((g) => g.kind === 'case');
const holds = (s: { guards: StepInfo['guards'] }, assumed: Assumed) =>
  cases(s).every((g) => g.kind === 'case' && assumed.get(g.switchId) === g.caseIndex);
const hasWhen = (s: { guards: StepInfo['guards'] }) => s.guards.some((g) => g.kind === 'when');

/**
 * The first path (a list of switch decisions) on which none of `producers` runs, or undefined when
 * every path that reaches `assumed` produces. Only switches decide paths: a path ends at an
 * unconditional return; `strict` counts a `when:`-guarded producer (or switch) as possibly
 * skipped (pipeline outputs), otherwise a guard's skip just propagates (readers).
 */
function missingPath(ctx: PipelineContext, producers: readonly StepInfo[], assumed: Assumed, strict: boolean): string[] | undefined {
  const runs = (s: StepInfo) => holds(s, assumed) && !(strict && hasWhen(s));
  if (producers.some(runs)) return undefined;
  if (ctx.steps.some((s) => s.kind === 'return' && runs(s))) return undefined;
  const involved = new Set([...producers, ...ctx.steps.filter((s) => s.kind === 'return')]
    .flatMap((s) => cases(s).map((g) => (g.kind === 'case' ? g.switchId : -1))));
  const sw = ctx.switches.find((x) => involved.has(x.id) && !assumed.has(x.id) && holds(x, assumed) && !(strict && hasWhen(x)));
  if (!sw) return [];
  // Cases after a literal `true` never run (reported as unreachable when flattened).
  const last = sw.cases.findIndex((c) => alwaysTrue(c.source));
  const branches = last >= 0 ? sw.cases.slice(0, last + 1).map((_, i) => i) : [...sw.cases.map((_, i) => i), ...(sw.hasDefault ? [-1] : [])];
  for (const b of branches) {
    const miss = missingPath(ctx, producers, new Map([...assumed, [sw.id, b]]), strict);
    if (miss) return [`${sw.name} ${b === -1 ? 'default' : `case ${b + 1}`}`, ...miss];
  }
  return sw.hasDefault || last >= 0 ? undefined : [`${sw.name} with no case taken (it has no default)`];
}

const producingSteps = (ctx: PipelineContext, tensor: string) =>
  (ctx.producers.get(tensor) ?? []).flatMap((p) => (p.kind === 'step' ? [ctx.steps[p.step]!] : []));
const isInput = (ctx: PipelineContext, tensor: string) => (ctx.producers.get(tensor) ?? []).some((p) => p.kind === 'input');
const describe = (path: string[]) => (path.length ? path.join(', ') : 'the path where its guard is false');

/**
 * Every non-optional output is produced on every path, and every `return` gives every
 * non-optional output; a tensor that only some cases produce is read only where they ran.
 */
export function checkPaths(ctx: PipelineContext): void {
  const required = ctx.config.output.filter((o) => !o.optional).map((o) => o.name);
  ctx.config.output.forEach((o, i) => {
    if (o.optional) return;
    const producers = producingSteps(ctx, o.name).filter((s) => s.kind !== 'return');
    if (producers.length === 0 && !ctx.steps.some((s) => s.kind === 'return')) return; // "never produced" is reported already
    if (isInput(ctx, o.name)) return;
    const miss = missingPath(ctx, producers, new Map(), true);
    if (miss) {
      ctx.sink.error(`output[${i}]`, `${where(ctx)}: output ${q(o.name)} is not produced on ${describe(miss)}; produce it on every path, or mark the output 'optional: true'`);
    }
  });
  for (const s of ctx.steps) {
    if (s.kind !== 'return') continue;
    const given = new Set(Object.keys(s.ret?.outputs ?? {}));
    const lacking = required.filter((o) => !given.has(o));
    if (lacking.length) {
      ctx.sink.error(`${s.path}.return.outputs`, `${where(ctx, s)}: the return gives no ${lacking.map(q).join(', ')}; a return emits exactly its outputs, so give every required output or mark it 'optional: true'`);
    }
  }
  for (const r of ctx.steps) {
    for (const [key, tensor] of r.inputMap) {
      const producers = producingSteps(ctx, tensor);
      if (producers.length === 0 || isInput(ctx, tensor) || r.kind === 'return') continue;
      const assumed = new Map(cases(r).map((g) => (g.kind === 'case' ? [g.switchId, g.caseIndex] : [-1, -1])));
      const miss = missingPath(ctx, producers, assumed, false);
      if (miss && miss.length > 0) {
        const at = r.kind === 'model' ? `${r.path}.input_map.${key}` : r.path;
        ctx.sink.error(at, `${where(ctx, r)}: reads tensor ${q(tensor)}, which is not produced on ${describe(miss)}; produce it in every case (or default) or move this step into the cases that produce it`);
      }
    }
  }
}
