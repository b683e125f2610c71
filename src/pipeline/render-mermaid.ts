import type { PipelinePlan } from './pipeline-plan.js';

const id = (s: string) => s.replace(/[^A-Za-z0-9_]/g, '_');
const label = (s: string) => s.replace(/"/g, '#quot;');

/** Mermaid flowchart of a plan (`tributary graph MODEL`): steps as boxes, tensors on the edges. */
export function renderMermaid(plan: PipelinePlan): string {
  const lines = ['flowchart LR'];
  const producer = new Map<string, string>();
  for (const t of plan.inputs) {
    lines.push(`  in_${id(t.name)}(["${label(t.name)}"])`);
    producer.set(t.name, `in_${id(t.name)}`);
  }
  for (const s of plan.steps) {
    lines.push(`  s${s.position}["${label(s.name)}${s.version ? ` v${s.version}` : ''}"]`);
    for (const o of s.outputs) producer.set(o.tensor, `s${s.position}`);
  }
  for (const t of plan.outputs) lines.push(`  out_${id(t.name)}(["${label(t.name)}"])`);
  for (const s of plan.steps) {
    for (const i of s.inputs) {
      const from = producer.get(i.tensor);
      if (from) lines.push(`  ${from} -->|"${label(i.tensor)}"| s${s.position}`);
    }
  }
  for (const t of plan.outputs) {
    const from = producer.get(t.name);
    if (from) lines.push(`  ${from} -->|"${label(t.name)}"| out_${id(t.name)}`);
  }
  return lines.join('\n') + '\n';
}
