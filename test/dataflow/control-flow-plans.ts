/**
 * Hand-built control-flow plans for the dataflow's unit tests: nodes in topological order, with
 * `consumers` and `producers` derived as the compiler derives them, and real compiled conditions
 * (src/pipeline/condition). Not a test file itself.
 */
import { compileCondition, type Condition } from '../../src/pipeline/condition/index.js';
import type { PipelinePlan, PlanGuard, PlanLoop, PlanMap, PlanReturnOutput, PlanStep, PlanTensor } from '../../src/pipeline/index.js';
import type { Tensor } from '../../src/tensor/index.js';

/** Datatype and dims of the tensors conditions read, for their type check. */
export type CondEnv = Record<string, { datatype: string; dims: number[] }>;

export function cond(source: string, env: CondEnv = {}): Condition {
  const r = compileCondition(source, { tensor: (n) => env[n] });
  if (!r.condition) throw new Error(`condition ${source}: ${JSON.stringify(r.problems)}`);
  return r.condition;
}

export const when = (source: string, env?: CondEnv): PlanGuard => ({ kind: 'when', condition: cond(source, env) });
export const inCase = (switchId: number, caseIndex: number): PlanGuard => ({ kind: 'case', switchId, caseIndex });

export interface NodeSpec {
  name?: string;
  kind?: PlanStep['kind'];
  model?: string;
  in?: Record<string, string>;
  out?: Record<string, string>;
  guards?: PlanGuard[];
  map?: PlanMap;
  loop?: PlanLoop;
  ret?: PlanReturnOutput[];
}

export const step = (model: string, inputs: Record<string, string>, outputs: Record<string, string>, guards: PlanGuard[] = []): NodeSpec =>
  ({ model, in: inputs, out: outputs, guards });

export const ret = (outputs: PlanReturnOutput[], reads: string[] = [], guards: PlanGuard[] = []): NodeSpec =>
  ({ kind: 'return', name: 'return', ret: outputs, in: Object.fromEntries(reads.map((r) => [r, r])), guards });

export interface PlanSpec {
  name?: string;
  inputs: string[];
  outputs: (string | PlanTensor)[];
  nodes: NodeSpec[];
  switches?: { cases: Condition[]; hasDefault: boolean; guards?: PlanGuard[]; name?: string }[];
  optional?: string[];
  decoupled?: boolean;
}

export function plan(spec: PlanSpec): PipelinePlan {
  const steps: PlanStep[] = spec.nodes.map((n, position) => {
    const kind = n.kind ?? (n.map ? 'map' : n.loop ? 'loop' : 'model');
    const outputs = Object.entries(n.out ?? {}).map(([name, tensor]) => ({ name, tensor }));
    return {
      position, configIndex: position, kind,
      name: n.name ?? (kind === 'model' ? `${n.model}#${position}` : `${kind}#${position}`),
      model: n.model ?? '', version: '',
      inputs: Object.entries(n.in ?? {}).map(([name, tensor]) => ({ name, tensor })),
      outputs,
      requestedOutputs: outputs.map((o) => ({ name: o.name })),
      decoupled: false,
      guards: n.guards ?? [],
      ...(n.map ? { map: n.map } : {}),
      ...(n.loop ? { loop: n.loop } : {}),
      ...(n.ret ? { ret: n.ret } : {}),
    };
  });
  const consumers = new Map<string, number[]>();
  const producers = new Map<string, number[]>();
  const add = (m: Map<string, number[]>, k: string, v: number) => m.set(k, [...(m.get(k) ?? []), v]);
  for (const s of steps) {
    for (const b of s.inputs) add(consumers, b.tensor, s.position);
    for (const b of s.outputs) add(producers, b.tensor, s.position);
    for (const r of s.ret ?? []) add(producers, r.name, s.position);
  }
  return {
    name: spec.name ?? 'p',
    decoupled: spec.decoupled ?? false,
    maxInflightRequests: 0,
    inputs: spec.inputs.map((name) => ({ name })),
    outputs: spec.outputs.map((o) => (typeof o === 'string' ? { name: o } : o)),
    steps,
    consumers,
    switches: (spec.switches ?? []).map((s, id) => ({ id, name: s.name ?? `switch#${id + 1}`, cases: s.cases, hasDefault: s.hasDefault, guards: s.guards ?? [] })),
    producers,
    optionalOutputs: new Set(spec.optional ?? []),
  };
}

export const literal = (t: Tensor): PlanReturnOutput => ({ name: t.name, literal: t });
