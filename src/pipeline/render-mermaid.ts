import type { PipelinePlan, PlanGuard, PlanStep } from './pipeline-plan.js';

const id = (s: string) => s.replace(/[^A-Za-z0-9_]/g, '_');
const label = (s: string) => s.replace(/"/g, '#quot;');

/**
 * Mermaid flowchart of a plan (`tributary graph MODEL`): steps as boxes, tensors on the edges;
 * switches as diamonds with an edge per case (labelled with its condition), a `when:` on the
 * edges into its node, map and loop bodies as subgraphs, a return as a terminal node.
 */
export function renderMermaid(plan: PipelinePlan): string {
  const lines = ['flowchart LR'];
  drawPlan(plan, '', '  ', lines);
  return lines.join('\n') + '\n';
}

function nodeShape(s: PlanStep, key: string): string {
  if (s.kind === 'return') return `${key}((("${label(s.name)}")))`;
  return `${key}["${label(s.name)}${s.version ? ` v${s.version}` : ''}"]`;
}

function sameCase(s: PlanStep, g: Extract<PlanGuard, { kind: 'case' }>): boolean {
  const own = s.guards.filter((x) => x.kind === 'case').at(-1);
  return own?.kind === 'case' && own.switchId === g.switchId && own.caseIndex === g.caseIndex;
}

function caseLabel(plan: PipelinePlan, g: Extract<PlanGuard, { kind: 'case' }>): string {
  return g.caseIndex === -1 ? 'default' : plan.switches[g.switchId]!.cases[g.caseIndex]!.source;
}

function drawPlan(plan: PipelinePlan, prefix: string, pad: string, lines: string[]): void {
  const producers = new Map<string, string[]>();
  const made = (t: string, by: string) => producers.set(t, [...(producers.get(t) ?? []), by]);
  const key = (s: PlanStep) => `${prefix}s${s.position}`;
  for (const t of plan.inputs) {
    lines.push(`${pad}${prefix}in_${id(t.name)}(["${label(t.name)}"])`);
    made(t.name, `${prefix}in_${id(t.name)}`);
  }
  for (const s of plan.steps) {
    const sub = s.map ?? s.loop;
    if (sub) {
      const title = s.map ? `${s.name} over ${s.map.over} as ${s.map.as}, concurrency ${s.map.concurrency}`
        : `${s.name} max ${s.loop!.max}${s.loop!.while ? `, while ${s.loop!.while.source}` : ''}`;
      lines.push(`${pad}subgraph ${key(s)} ["${label(title)}"]`);
      drawPlan(sub.plan, `${key(s)}_`, `${pad}  `, lines);
      lines.push(`${pad}end`);
    } else lines.push(`${pad}${nodeShape(s, key(s))}`);
    for (const o of s.outputs) made(o.tensor, key(s));
  }
  plan.switches.forEach((sw) => lines.push(`${pad}${prefix}sw${sw.id}{"${label(sw.name)}"}`));
  for (const t of plan.outputs) lines.push(`${pad}${prefix}out_${id(t.name)}(["${label(t.name)}"])`);
  const edge = (from: string, to: string, text: string, dotted = false) =>
    lines.push(`${pad}${from} ${dotted ? '-.->' : '-->'}|"${label(text)}"| ${to}`);
  // A switch waits for what its cases read; its diamond leads into each case's nodes.
  for (const sw of plan.switches) {
    for (const t of new Set(sw.cases.flatMap((c) => c.reads))) for (const from of producers.get(t) ?? []) edge(from, `${prefix}sw${sw.id}`, t, true);
    const parent = sw.guards.filter((g) => g.kind === 'case').at(-1);
    if (parent?.kind === 'case') edge(`${prefix}sw${parent.switchId}`, `${prefix}sw${sw.id}`, caseLabel(plan, parent));
  }
  for (const s of plan.steps) {
    const when = s.guards.flatMap((g) => (g.kind === 'when' ? [g.condition.source] : []));
    const suffix = when.length ? ` when ${when.join(' and ')}` : '';
    const innermost = s.guards.filter((g) => g.kind === 'case').at(-1);
    // The case edge goes to the case's first nodes only: the rest follow them by their tensors.
    if (innermost?.kind === 'case' && !s.inputs.some((i) => (plan.producers.get(i.tensor) ?? []).some((pos) => sameCase(plan.steps[pos]!, innermost)))) {
      edge(`${prefix}sw${innermost.switchId}`, key(s), `${caseLabel(plan, innermost)}${suffix}`);
    }
    for (const i of s.inputs) for (const from of producers.get(i.tensor) ?? []) edge(from, key(s), `${i.tensor}${suffix}`);
    const condReads = new Set(s.guards.flatMap((g) => (g.kind === 'when' ? g.condition.reads : [])));
    for (const t of condReads) for (const from of producers.get(t) ?? []) edge(from, key(s), t, true);
    for (const r of s.ret ?? []) edge(key(s), `${prefix}out_${id(r.name)}`, r.tensor ?? 'literal', true);
  }
  for (const t of plan.outputs) for (const from of producers.get(t.name) ?? []) edge(from, `${prefix}out_${id(t.name)}`, t.name);
}
