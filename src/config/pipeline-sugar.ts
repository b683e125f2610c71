/**
 * YAML pipeline sugar: a top-level `steps:` list is rewritten into `ensemble_scheduling.step`
 * before schema conversion, so positions and problems point at what the user wrote:
 *   steps: [{ model: tok, version: -1, inputs: { TEXT: TEXT }, outputs: { ids: ids } }]
 * `model`/`name` -> model_name, `version` -> model_version, `inputs` -> input_map,
 * `outputs` -> output_map (step tensor -> pipeline tensor). `platform` defaults to ensemble.
 */
import type { ConfigProblem } from './config-problem.js';
import type { Entry, ObjectNode, SyntaxNode } from './syntax-tree.js';

const STEP_ALIASES: Record<string, string> = {
  model: 'model_name', name: 'model_name', model_name: 'model_name',
  version: 'model_version', model_version: 'model_version',
  inputs: 'input_map', input_map: 'input_map', outputs: 'output_map', output_map: 'output_map',
};

export function desugarSteps(tree: SyntaxNode, file: string, problems: ConfigProblem[]): SyntaxNode {
  if (tree.type !== 'object') return tree;
  const stepsAt = tree.entries.findIndex((e) => e.key === 'steps');
  if (stepsAt < 0) return tree;
  const steps = tree.entries[stepsAt]!;
  const explicit = tree.entries.find((e) => e.key === 'ensemble_scheduling');
  if (explicit) {
    problems.push({ file, ...steps.keyPos, path: 'steps', severity: 'error',
      message: `steps: use either 'steps' or 'ensemble_scheduling' (set at ${explicit.keyPos.line}:${explicit.keyPos.col}), not both` });
    return { ...tree, entries: tree.entries.filter((e) => e !== steps) };
  }
  const stepList: SyntaxNode = steps.value.type === 'list'
    ? { ...steps.value, items: steps.value.items.map((s) => renameStep(s, file, problems)) }
    : steps.value;
  const scheduling: Entry = {
    key: 'ensemble_scheduling', keyPos: steps.keyPos,
    value: { type: 'object', style: 'mapping', pos: steps.keyPos, entries: [{ key: 'step', keyPos: steps.keyPos, value: stepList }] },
  };
  const entries = tree.entries.map((e) => (e === steps ? scheduling : e));
  if (!entries.some((e) => e.key === 'platform')) {
    entries.push({ key: 'platform', keyPos: steps.keyPos,
      value: { type: 'scalar', style: 'string', text: 'ensemble', value: 'ensemble', pos: steps.keyPos } });
  }
  return { ...tree, entries } satisfies ObjectNode;
}

function renameStep(step: SyntaxNode, file: string, problems: ConfigProblem[]): SyntaxNode {
  if (step.type !== 'object') return step;
  const used = new Map<string, string>();
  const entries: Entry[] = [];
  for (const e of step.entries) {
    const target = STEP_ALIASES[e.key];
    if (!target) { entries.push(e); continue; }
    const prev = used.get(target);
    if (prev !== undefined) {
      problems.push({ file, ...e.keyPos, path: 'steps', severity: 'error',
        message: `steps: '${e.key}' and '${prev}' both set ${target} in the same step` });
      continue;
    }
    used.set(target, e.key);
    entries.push({ ...e, key: target });
  }
  return { ...step, entries };
}
