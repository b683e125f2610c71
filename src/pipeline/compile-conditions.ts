import type { Condition, ConditionEnv } from './condition/index.js';
import { compileCondition } from './condition/index.js';
import type { StepInfo, SwitchInfo, TensorType } from './pipeline-context.js';
import { q } from './pipeline-context.js';
import type { ProblemSink } from './pipeline-problem.js';
import type { TypeLookup } from './scope-types.js';

/** Class labels of a tensor, where its producing model has a label file. */
export type LabelsOf = (tensor: string) => readonly string[] | undefined;

function envOf(lookup: TypeLookup, names: () => Iterable<string>, labelsOf?: LabelsOf): ConditionEnv {
  return {
    tensor: (name) => {
      const t = lookup(name);
      const labels = t && labelsOf?.(name);
      return t && (labels ? { datatype: t.datatype, dims: t.full, labels } : { datatype: t.datatype, dims: t.full });
    },
    names,
  };
}

/**
 * Every condition of a scope, compiled against its tensor types: `when:` guards, switch cases
 * and loop `while:`s (which also see the loop's carried tensors). A problem is reported at the
 * character it names inside the YAML string (`path#text` is where the string's text starts).
 */
export function compileConditions(steps: readonly StepInfo[], switches: readonly SwitchInfo[], lookup: TypeLookup,
  names: () => Iterable<string>, sink: ProblemSink, label: string, labelsOf?: LabelsOf): Map<string, Condition> {
  const out = new Map<string, Condition>();
  const one = (source: string, path: string, env: ConditionEnv, what: string) => {
    if (out.has(path)) return;
    const r = compileCondition(source, env);
    for (const p of r.problems) sink.error(`${path}#text`, `${label}, ${what}: condition ${q(source)}: ${p.message}`, p.offset);
    if (r.condition && r.problems.length === 0) out.set(path, r.condition);
  };
  const env = envOf(lookup, names, labelsOf);
  for (const s of steps) {
    for (const g of s.guards) if (g.kind === 'when') one(g.source, g.path, env, s.label);
    if (s.loop?.while !== undefined) {
      const carried = new Map<string, TensorType>();
      for (const [c, from] of Object.entries(s.loop.carry ?? {})) { const t = lookup(from); if (t) carried.set(c, t); }
      const inner = envOf((n) => carried.get(n) ?? lookup(n), () => [...carried.keys(), ...names()], labelsOf);
      one(s.loop.while, `${s.path}.loop.while`, inner, s.label);
    }
  }
  for (const sw of switches) {
    sw.cases.forEach((c, i) => { if (c.source) one(c.source, c.path, env, `case ${i + 1} of ${q(sw.name)}`); });
  }
  return out;
}
