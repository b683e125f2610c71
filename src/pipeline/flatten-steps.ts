import type { NestedStep } from '../config/index.js';
import type { GuardSource, SwitchInfo } from './pipeline-context.js';
import { q, shortPath } from './pipeline-context.js';
import type { PlanStepKind } from './pipeline-plan.js';
import type { ProblemSink } from './pipeline-problem.js';

/** One node of a scope in YAML order, before models and types are resolved. */
export interface FlatNode {
  readonly kind: PlanStepKind;
  readonly path: string;
  readonly guards: readonly GuardSource[];
  readonly branch: string;
  readonly step: NestedStep;
}

export interface FlatScope {
  readonly nodes: FlatNode[];
  readonly switches: SwitchInfo[];
}

const CONSTRUCTS = ['switch', 'return', 'map', 'loop'] as const;

/** A literal `true` condition: the cases after it (and the default) can never run. */
export const alwaysTrue = (source: string | undefined): boolean => source?.trim() === 'true';

/**
 * A scope's `steps:` tree as a flat node list: switch cases become `case` guards on the nodes
 * inside them (a switch is not a node, only its decision), `when:` becomes a `when` guard.
 * Reports what is wrong in the tree's shape: a step with no or several kinds, and unreachable
 * entries (after an unconditional return, or after a case whose condition is literally `true`).
 */
export function flattenSteps(steps: readonly NestedStep[], base: string, sink: ProblemSink, inBody: boolean, label: string, number: Numbering = numbering()): FlatScope {
  const out: FlatScope = { nodes: [], switches: [] };
  const at = (branch: string) => (branch ? `${label}, ${branch}` : label);
  walk(steps, base, [], '', out, { sink, inBody, at, number });
  return out;
}

/**
 * The next number of a kind of unnamed node (`switch`, `map`, `loop`, `return`), shared by a
 * pipeline and all its bodies: a map nested in a map is `map#2`, so every name is unique across
 * messages, statistics (`map#1/map#2/<step>`) and `tributary graph`.
 */
export type Numbering = (kind: string) => number;

export function numbering(): Numbering {
  const counts = new Map<string, number>();
  return (kind) => {
    const n = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, n);
    return n;
  };
}

interface Walk { readonly sink: ProblemSink; readonly inBody: boolean; readonly at: (branch: string) => string; readonly number: Numbering }

function walk(steps: readonly NestedStep[], base: string, guards: readonly GuardSource[], branch: string, out: FlatScope, w: Walk): void {
  const { sink, inBody } = w;
  const where = w.at;
  let endedBy: string | undefined;
  steps.forEach((step, i) => {
    const path = `${base}[${i}]`;
    if (endedBy) {
      sink.error(path, `${where(branch)}: ${shortPath(path)} is unreachable: it comes after the unconditional return at ${shortPath(endedBy)}; remove it or give the return a 'when'`);
      return;
    }
    const kinds = [...(step.model_name ? ['model'] : []), ...CONSTRUCTS.filter((k) => step[k] !== undefined)];
    if (kinds.length !== 1) {
      const what = kinds.length === 0 ? 'has none' : `has ${kinds.map(q).join(' and ')}`;
      sink.error(path, `${where(branch)}: each step needs exactly one of 'model', 'switch', 'return', 'map', 'loop'; ${shortPath(path)} ${what}`);
      return;
    }
    const own: GuardSource[] = step.when !== undefined ? [{ kind: 'when', source: step.when, path: `${path}.when` }] : [];
    const kind = kinds[0]!;
    if (kind === 'switch') {
      walkSwitch(step, path, [...guards, ...own], branch, out, w);
      return;
    }
    if (kind === 'return') {
      if (inBody) {
        sink.error(`${path}.return`, `${where(branch)}: 'return' ends the whole pipeline and is not allowed inside a map or loop body; produce the body's outputs instead`);
        return;
      }
      const r = step.return!;
      if (r.when !== undefined) own.push({ kind: 'when', source: r.when, path: `${path}.return.when` });
      if (own.length === 0) endedBy = `${path}.return`;
    }
    out.nodes.push({ kind: kind as PlanStepKind, path, guards: [...guards, ...own], branch, step });
  });
}

function walkSwitch(step: NestedStep, path: string, guards: readonly GuardSource[], branch: string, out: FlatScope, w: Walk): void {
  const { sink } = w;
  const where = w.at;
  const sw = step.switch!;
  const id = out.switches.length;
  // A named switch takes its number too: `switch#<n>` is the n-th switch of the YAML.
  const n = w.number('switch');
  const name = sw.name || `switch#${n}`;
  const cases = sw.cases ?? [];
  const info: SwitchInfo = {
    id, name, path: `${path}.switch`, hasDefault: sw.default !== undefined, guards,
    cases: cases.map((c, i) => ({ source: c.when ?? '', path: `${path}.switch.cases[${i}].when` })),
  };
  out.switches.push(info);
  if (cases.length === 0) sink.error(`${path}.switch`, `${where(branch)}: ${q(name)} has no cases; add 'cases: [{ when: ..., steps: [...] }]'`);
  const trueAt = cases.findIndex((c) => alwaysTrue(c.when));
  cases.forEach((c, i) => {
    const cpath = `${path}.switch.cases[${i}]`;
    if (c.when === undefined) sink.error(cpath, `${where(branch)}: case ${i + 1} of ${q(name)} has no 'when'; every case needs a condition (use 'default' for the rest)`);
    if (trueAt >= 0 && i > trueAt) {
      sink.error(cpath, `${where(branch)}: case ${i + 1} of ${q(name)} is unreachable: case ${trueAt + 1}'s condition is always true`);
      return;
    }
    walk(c.steps ?? [], `${cpath}.steps`, [...guards, { kind: 'case', switchId: id, caseIndex: i }], `${name} case ${i + 1}`, out, w);
  });
  if (sw.default === undefined) return;
  if (trueAt >= 0) {
    sink.error(`${path}.switch.default`, `${where(branch)}: the default of ${q(name)} is unreachable: case ${trueAt + 1}'s condition is always true`);
    return;
  }
  walk(sw.default, `${path}.switch.default`, [...guards, { kind: 'case', switchId: id, caseIndex: -1 }], `${name} default`, out, w);
}
