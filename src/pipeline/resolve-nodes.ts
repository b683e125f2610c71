import type { ModelConfig, NestedStep } from '../config/index.js';
import type { FlatNode, Numbering } from './flatten-steps.js';
import type { BodyInfo, Resolve, StepInfo, TensorType } from './pipeline-context.js';
import { q, shortPath } from './pipeline-context.js';
import { configTensorType, syntheticConfig, syntheticTensor, type TypeLookup } from './scope-types.js';

/** What a body needs to compile: its steps, config path, own tensors (`as` / carried) and outputs. */
export interface BodySpec {
  readonly kind: 'map' | 'loop';
  readonly name: string;
  readonly steps: readonly NestedStep[];
  readonly base: string;
  readonly own: ReadonlyMap<string, TensorType>;
  readonly outputs: readonly string[];
  /** Where each output is written, under the construct (`outputs.text`, `next.state`). */
  readonly outputKeys: readonly string[];
  readonly lookup: TypeLookup;
}

/** A compiled body: its plan info and the outer tensors it reads (its inputs besides its own). */
export interface CompiledBody extends BodyInfo { readonly reads: readonly string[] }

export interface ResolvedNodes {
  readonly steps: StepInfo[];
  /** Every tensor's type in the scope: inputs, then node outputs in YAML order (first one wins). */
  readonly types: Map<string, TensorType>;
}

/**
 * Models and types, in YAML order: a model step's outputs are typed by its model, a map's by its
 * body (items concatenated: dim 0 becomes -1), a loop's by what it carries. A body sees the
 * tensors produced before its construct (as the YAML reads), so it compiles here, in order.
 */
export function resolveNodes(config: ModelConfig, nodes: readonly FlatNode[], start: ReadonlyMap<string, TensorType>,
  outer: TypeLookup | undefined, resolve: Resolve, compileBody: (spec: BodySpec) => CompiledBody, number: Numbering): ResolvedNodes {
  const types = new Map(start);
  const lookup: TypeLookup = (n) => types.get(n) ?? outer?.(n);
  const set = (n: string, t: TensorType | undefined) => { if (t && !types.has(n)) types.set(n, t); };
  const counts = new Map<string, number>();
  for (const n of nodes) {
    const key = n.kind === 'model' ? n.step.model_name! : n.kind;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const steps = nodes.map((n, index): StepInfo => {
    const s = n.step;
    const common = { index, kind: n.kind, guards: n.guards, branch: n.branch, path: n.path };
    if (n.kind === 'model') {
      const model = s.model_name!;
      const version = s.model_version ?? -1;
      const name = (counts.get(model) ?? 0) > 1 ? `${model}#${index}` : model;
      const m = model === config.name.split('/')[0] ? undefined : resolve(model, version);
      const outputMap = Object.entries(s.output_map ?? {});
      for (const [k, t] of outputMap) {
        const o = m?.output.find((x) => x.name === k);
        set(t, o && m ? configTensorType(m, o) : undefined);
      }
      const at = shortPath(n.path);
      const label = name === model ? `step ${q(name)} (${at})` : `step ${q(name)} (${at}, model ${q(model)})`;
      return { ...common, name, model, version, config: m, inputMap: Object.entries(s.input_map ?? {}), outputMap, label };
    }
    // Numbered before its body compiles, so names follow the YAML top to bottom.
    const name = `${n.kind}#${number(n.kind)}`;
    const label = `${n.kind} ${q(name)} (${shortPath(n.path)})`;
    let inputMap: [string, string][] = [];
    let outputMap: [string, string][] = [];
    let body: CompiledBody | undefined;
    if (n.kind === 'map') {
      const mp = s.map!;
      const over = mp.over !== undefined ? lookup(mp.over) : undefined;
      const item = over && over.full.length > 0 ? { datatype: over.datatype, full: [1, ...over.full.slice(1)] } : undefined;
      const own = new Map<string, TensorType>(mp.as !== undefined && item ? [[mp.as, item]] : []);
      outputMap = Object.entries(mp.outputs ?? {});
      body = compileBody({ kind: 'map', name, steps: mp.steps ?? [], base: `${n.path}.map.steps`, own, outputs: outputMap.map(([i]) => i), outputKeys: outputMap.map(([i]) => `outputs.${i}`), lookup });
      inputMap = [...new Set([...(mp.over !== undefined ? [mp.over] : []), ...body.reads])].map((t) => [t, t]);
      for (const [inner, t] of outputMap) {
        const it = body.types.get(inner);
        set(t, it && { datatype: it.datatype, full: [-1, ...it.full.slice(1)] });
      }
    } else if (n.kind === 'loop') {
      const lp = s.loop!;
      const carry = Object.entries(lp.carry ?? {});
      const own = new Map<string, TensorType>();
      for (const [c, from] of carry) { const t = lookup(from); if (t) own.set(c, t); }
      const next = Object.entries(lp.next ?? {});
      body = compileBody({ kind: 'loop', name, steps: lp.steps ?? [], base: `${n.path}.loop.steps`, own, outputs: next.map(([, b]) => b), outputKeys: next.map(([c]) => `next.${c}`), lookup });
      inputMap = [...carry, ...body.reads.filter((r) => !carry.some(([c]) => c === r)).map((r): [string, string] => [r, r])];
      outputMap = Object.entries(lp.outputs ?? {});
      for (const [c, t] of outputMap) set(t, own.get(c));
    } else {
      const outs = Object.entries(s.return?.outputs ?? {});
      const reads = [...new Set(outs.flatMap(([, v]) => (v.tensor !== undefined ? [v.tensor] : [])))];
      inputMap = reads.map((t) => [t, t]);
      // A return "produces" the outputs it names, so the path checks and producers see it; except
      // one that passes on the tensor of its own name (LANGUAGE: LANGUAGE), which another node
      // produces: reading and producing it would be a cycle of one node and a second producer.
      outputMap = outs.filter(([o, v]) => v.tensor !== o).map(([o]) => [o, o]);
    }
    const inTypes = inputMap.map(([i, t]) => syntheticTensor(i, lookup(t)));
    const outTypes = outputMap.map(([o, t]) => syntheticTensor(o, n.kind === 'return' ? returnType(config, o, s, lookup) : types.get(t) ?? body?.types.get(o)));
    const info: StepInfo = {
      ...common, name, model: '', version: -1, config: syntheticConfig(name, inTypes, outTypes, config), inputMap, outputMap, label,
      ...(s.map ? { map: s.map } : {}), ...(s.loop ? { loop: s.loop } : {}), ...(s.return ? { ret: s.return } : {}),
      ...(body ? { body: { plan: body.plan, types: body.types } } : {}),
    };
    return info;
  });
  return { steps, types };
}

/** A return output's type: the tensor it passes on, or (a literal) the pipeline output's own. */
function returnType(config: ModelConfig, output: string, s: NestedStep, lookup: TypeLookup): TensorType | undefined {
  const v = s.return?.outputs?.[output];
  if (v?.tensor !== undefined) return lookup(v.tensor);
  const o = config.output.find((x) => x.name === output);
  return o && configTensorType(config, o, true);
}
