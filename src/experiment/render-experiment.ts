import type { ExperimentPlan } from './experiment-plan.js';

/** A weight as the share of the traffic it gives, to one decimal where it needs one. */
const share = (plan: ExperimentPlan, weight: number) => `${Number(((weight / plan.total) * 100).toFixed(1))}%`;
const stickyText = (plan: ExperimentPlan) => (!plan.sticky ? 'weighted random' : 'header' in plan.sticky ? `sticky on header ${plan.sticky.header}` : `sticky on parameter ${plan.sticky.parameter}`);
const named = (model: string, version: string | undefined) => `${model}${version ? ` v${version}` : ''}`;

/**
 * `tributary graph EXPERIMENT`: the experiment as a node, an edge to each variant labelled with
 * its weight and share of the traffic, a dotted edge to the mirror with its percent.
 */
export function renderExperimentMermaid(plan: ExperimentPlan): string {
  const label = (s: string) => s.replace(/"/g, '#quot;');
  const lines = ['flowchart LR', `  exp(["${label(plan.name)}<br/>${label(stickyText(plan))}"])`];
  plan.variants.forEach((v, i) => {
    lines.push(`  v${i}["${label(named(v.model, v.version))}"]`);
    lines.push(`  exp -->|"weight ${v.weight} (${share(plan, v.weight)})"| v${i}`);
  });
  if (plan.mirror) {
    lines.push(`  mirror["${label(named(plan.mirror.model, plan.mirror.version))}<br/>mirror, answers discarded"]`);
    lines.push(`  exp -.->|"copy ${plan.mirror.percent}%"| mirror`);
  }
  return lines.join('\n') + '\n';
}

export function renderExperimentDot(plan: ExperimentPlan): string {
  // DOT's own escapes: a quote, a backslash, and \n for a line break inside a label.
  const str = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
  const lines = [`digraph ${str(plan.name)} {`, '  rankdir=LR;', `  "exp" [label=${str(`${plan.name}\n${stickyText(plan)}`)}, shape=ellipse];`];
  plan.variants.forEach((v, i) => {
    lines.push(`  "v${i}" [label=${str(named(v.model, v.version))}, shape=box];`);
    lines.push(`  "exp" -> "v${i}" [label=${str(`weight ${v.weight} (${share(plan, v.weight)})`)}];`);
  });
  if (plan.mirror) {
    lines.push(`  "mirror" [label=${str(`${named(plan.mirror.model, plan.mirror.version)}\nmirror, answers discarded`)}, shape=box, style=dashed];`);
    lines.push(`  "exp" -> "mirror" [label=${str(`copy ${plan.mirror.percent}%`)}, style=dashed];`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}
