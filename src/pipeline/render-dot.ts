import type { PipelinePlan } from './pipeline-plan.js';

const str = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** Graphviz DOT of a plan (`tributary graph MODEL --format dot`). */
export function renderDot(plan: PipelinePlan): string {
  const lines = [`digraph ${str(plan.name)} {`, '  rankdir=LR;'];
  const producer = new Map<string, string>();
  for (const t of plan.inputs) {
    lines.push(`  ${str(`in:${t.name}`)} [label=${str(t.name)}, shape=ellipse];`);
    producer.set(t.name, `in:${t.name}`);
  }
  for (const s of plan.steps) {
    const name = `${s.name}${s.version ? ` v${s.version}` : ''}${s.decoupled ? ' (decoupled)' : ''}`;
    lines.push(`  ${str(`step:${s.position}`)} [label=${str(name)}, shape=box];`);
    for (const o of s.outputs) producer.set(o.tensor, `step:${s.position}`);
  }
  for (const t of plan.outputs) lines.push(`  ${str(`out:${t.name}`)} [label=${str(t.name)}, shape=ellipse];`);
  for (const s of plan.steps) {
    for (const i of s.inputs) {
      const from = producer.get(i.tensor);
      if (from) lines.push(`  ${str(from)} -> ${str(`step:${s.position}`)} [label=${str(i.tensor)}];`);
    }
  }
  for (const t of plan.outputs) {
    const from = producer.get(t.name);
    if (from) lines.push(`  ${str(from)} -> ${str(`out:${t.name}`)} [label=${str(t.name)}];`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}
