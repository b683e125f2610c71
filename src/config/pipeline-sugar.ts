/**
 * YAML pipeline sugar: a top-level `steps:` list is rewritten into `ensemble_scheduling.step`
 * before schema conversion, so positions and problems point at what the user wrote:
 *   steps: [{ model: tok, version: -1, inputs: { TEXT: TEXT }, outputs: { ids: ids } }]
 * `model`/`name` -> model_name, `version` -> model_version, `inputs` -> input_map,
 * `outputs` -> output_map (step tensor -> pipeline tensor). `platform` defaults to ensemble.
 * The same renaming applies inside control-flow constructs (`switch` cases and default, `map` and
 * `loop` steps), and a `return` output written as `NAME: tensor` becomes { tensor }, a literal
 * `{ value: x }` becomes { value: [x] }.
 */
import type { ConfigProblem } from './config-problem.js';
import type { Entry, ObjectNode, SyntaxNode } from './syntax-tree.js';

export const STEP_ALIASES: Readonly<Record<string, string>> = {
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
  // `ensemble_scheduling` without its own `step` list may sit beside `steps` to carry the
  // scheduling fields (max_inflight_requests); the steps join it.
  const joinable = explicit?.value.type === 'object' && !explicit.value.entries.some((e) => e.key === 'step');
  if (explicit && !joinable) {
    problems.push({ file, ...steps.keyPos, path: 'steps', severity: 'error',
      message: `steps: use either 'steps' or 'ensemble_scheduling' with a 'step' list (set at ${explicit.keyPos.line}:${explicit.keyPos.col}), not both` });
    return { ...tree, entries: tree.entries.filter((e) => e !== steps) };
  }
  const step: Entry = { key: 'step', keyPos: steps.keyPos, value: renameSteps(steps.value, file, problems), written: { key: 'steps', atTop: true } };
  const scheduling: Entry = explicit && explicit.value.type === 'object'
    ? { ...explicit, value: { ...explicit.value, entries: [...explicit.value.entries, step] } }
    : { key: 'ensemble_scheduling', keyPos: steps.keyPos, value: { type: 'object', style: 'mapping', pos: steps.keyPos, entries: [step] } };
  const entries = tree.entries.filter((e) => e !== explicit).map((e) => (e === steps ? scheduling : e));
  if (!entries.some((e) => e.key === 'platform')) {
    entries.push({ key: 'platform', keyPos: steps.keyPos,
      value: { type: 'scalar', style: 'string', text: 'ensemble', value: 'ensemble', pos: steps.keyPos } });
  }
  return { ...tree, entries } satisfies ObjectNode;
}

function renameSteps(list: SyntaxNode, file: string, problems: ConfigProblem[]): SyntaxNode {
  return list.type === 'list' ? { ...list, items: list.items.map((s) => renameStep(s, file, problems)) } : list;
}

/** `entries` with the value of each key in `keys` rewritten by `fn`. */
function rewrite(node: SyntaxNode, keys: readonly string[], fn: (v: SyntaxNode, key: string) => SyntaxNode): SyntaxNode {
  if (node.type !== 'object') return node;
  return { ...node, entries: node.entries.map((e) => (keys.includes(e.key) ? { ...e, value: fn(e.value, e.key) } : e)) };
}

function desugarConstruct(key: string, value: SyntaxNode, file: string, problems: ConfigProblem[]): SyntaxNode {
  const steps = (v: SyntaxNode) => renameSteps(v, file, problems);
  if (key === 'map' || key === 'loop') return rewrite(value, ['steps'], steps);
  if (key === 'switch') {
    return rewrite(value, ['cases', 'default'], (v, k) => (k === 'default' ? steps(v)
      : v.type === 'list' ? { ...v, items: v.items.map((c) => rewrite(c, ['steps'], steps)) } : v));
  }
  if (key === 'return') return rewrite(value, ['outputs'], (outs) => (outs.type !== 'object' ? outs : { ...outs, entries: outs.entries.map((e) => ({ ...e, value: returnValue(e.value) })) }));
  return value;
}

function returnValue(v: SyntaxNode): SyntaxNode {
  if (v.type === 'scalar') return { type: 'object', style: 'mapping', pos: v.pos, entries: [{ key: 'tensor', keyPos: v.pos, value: v }] };
  return rewrite(v, ['value'], (x) => (x.type === 'scalar' ? { type: 'list', items: [x], pos: x.pos } : x));
}

function renameStep(step: SyntaxNode, file: string, problems: ConfigProblem[]): SyntaxNode {
  if (step.type !== 'object') return step;
  const used = new Map<string, string>();
  const entries: Entry[] = [];
  for (const e of step.entries) {
    const target = Object.hasOwn(STEP_ALIASES, e.key) ? STEP_ALIASES[e.key] : undefined;
    if (!target) { entries.push({ ...e, value: desugarConstruct(e.key, e.value, file, problems) }); continue; }
    const prev = used.get(target);
    if (prev !== undefined) {
      problems.push({ file, ...e.keyPos, path: 'steps', severity: 'error',
        message: `steps: '${e.key}' and '${prev}' both set ${target} in the same step` });
      continue;
    }
    used.set(target, e.key);
    entries.push(e.key === target ? e : { ...e, key: target, written: { key: e.key } });
  }
  return { ...step, entries };
}
