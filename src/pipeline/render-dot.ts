import type { PipelinePlan, PlanGuard, PlanStep } from './pipeline-plan.js';

const str = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * Graphviz DOT of a plan (`tributary graph MODEL --format dot`): switches as diamonds with an edge
 * per case, a `when:` on the edges into its node, a map or loop as a cluster holding its header
 * node and its body, a return as a terminal (double circle).
 */
export function renderDot(plan: PipelinePlan): string {
  const lines = [`digraph ${str(plan.name)} {`, '  rankdir=LR;'];
  drawPlan(plan, '', '  ', lines);
  lines.push('}');
  return lines.join('\n') + '\n';
}

function sameCase(s: PlanStep, g: Extract<PlanGuard, { kind: 'case' }>): boolean {
  const own = s.guards.filter((x) => x.kind === 'case').at(-1);
  return own?.kind === 'case' && own.switchId === g.switchId && own.caseIndex === g.caseIndex;
}

function caseLabel(plan: PipelinePlan, g: Extract<PlanGuard, { kind: 'case' }>): string {
  return g.caseIndex === -1 ? 'default' : plan.switches[g.switchId]!.cases[g.caseIndex]!.source;
}

function header(s: PlanStep): string {
  if (s.map) return `${s.name} over ${s.map.over} as ${s.map.as} (concurrency ${s.map.concurrency})`;
  if (s.loop) return `${s.name} max ${s.loop.max}${s.loop.while ? ` while ${s.loop.while.source}` : ''}`;
  return `${s.name}${s.version ? ` v${s.version}` : ''}${s.decoupled ? ' (decoupled)' : ''}`;
}

function drawPlan(plan: PipelinePlan, prefix: string, pad: string, lines: string[]): void {
  const producers = new Map<string, string[]>();
  const made = (t: string, by: string) => producers.set(t, [...(producers.get(t) ?? []), by]);
  const key = (s: PlanStep) => `${prefix}step:${s.position}`;
  for (const t of plan.inputs) {
    lines.push(`${pad}${str(`${prefix}in:${t.name}`)} [label=${str(t.name)}, shape=ellipse];`);
    made(t.name, `${prefix}in:${t.name}`);
  }
  for (const s of plan.steps) {
    const sub = s.map ?? s.loop;
    if (sub) {
      lines.push(`${pad}subgraph ${str(`cluster_${key(s)}`)} {`, `${pad}  label=${str(s.name)}; style=dashed;`);
      lines.push(`${pad}  ${str(key(s))} [label=${str(header(s))}, shape=component];`);
      drawPlan(sub.plan, `${key(s)}/`, `${pad}  `, lines);
      lines.push(`${pad}}`);
    } else {
      lines.push(`${pad}${str(key(s))} [label=${str(header(s))}, shape=${s.kind === 'return' ? 'doublecircle' : 'box'}];`);
    }
    for (const o of s.outputs) made(o.tensor, key(s));
  }
  for (const sw of plan.switches) lines.push(`${pad}${str(`${prefix}switch:${sw.id}`)} [label=${str(sw.name)}, shape=diamond];`);
  for (const t of plan.outputs) lines.push(`${pad}${str(`${prefix}out:${t.name}`)} [label=${str(t.name)}, shape=ellipse];`);
  const edge = (from: string, to: string, text: string, dashed = false) =>
    lines.push(`${pad}${str(from)} -> ${str(to)} [label=${str(text)}${dashed ? ', style=dashed' : ''}];`);
  for (const sw of plan.switches) {
    for (const t of new Set(sw.cases.flatMap((c) => c.reads))) for (const from of producers.get(t) ?? []) edge(from, `${prefix}switch:${sw.id}`, t, true);
    const parent = sw.guards.filter((g) => g.kind === 'case').at(-1);
    if (parent?.kind === 'case') edge(`${prefix}switch:${parent.switchId}`, `${prefix}switch:${sw.id}`, caseLabel(plan, parent));
  }
  for (const s of plan.steps) {
    const when = s.guards.flatMap((g) => (g.kind === 'when' ? [g.condition.source] : []));
    const suffix = when.length ? ` when ${when.join(' and ')}` : '';
    const innermost = s.guards.filter((g) => g.kind === 'case').at(-1);
    // The case edge goes to the case's first nodes only: the rest follow them by their tensors.
    if (innermost?.kind === 'case' && !s.inputs.some((i) => (plan.producers.get(i.tensor) ?? []).some((pos) => sameCase(plan.steps[pos]!, innermost)))) {
      edge(`${prefix}switch:${innermost.switchId}`, key(s), `${caseLabel(plan, innermost)}${suffix}`);
    }
    for (const i of s.inputs) for (const from of producers.get(i.tensor) ?? []) edge(from, key(s), `${i.tensor}${suffix}`);
    for (const t of new Set(s.guards.flatMap((g) => (g.kind === 'when' ? g.condition.reads : [])))) {
      for (const from of producers.get(t) ?? []) edge(from, key(s), t, true);
    }
    for (const r of s.ret ?? []) edge(key(s), `${prefix}out:${r.name}`, r.tensor ?? 'literal', true);
  }
  for (const t of plan.outputs) for (const from of producers.get(t.name) ?? []) edge(from, `${prefix}out:${t.name}`, t.name);
}
