import { closest } from '../config/index.js';
import { dimsCompatible } from '../tensor/index.js';
import { literalTensor } from './literal-tensor.js';
import type { PipelineContext, StepInfo } from './pipeline-context.js';
import { q, where } from './pipeline-context.js';
import type { TypeLookup } from './scope-types.js';
import { showType } from './scope-types.js';

/** Bounds of the constructs' numbers (the contract's): loops must stop, maps must stay finite. */
export const LIMITS = {
  loopMax: 10_000, mapConcurrency: 1024, mapItems: 1_000_000,
  defaultConcurrency: 16, defaultMaxItems: 1024,
} as const;

/** The fields of each map, loop and return: present, in range, naming tensors that exist. */
export function checkConstructs(ctx: PipelineContext, lookup: TypeLookup): void {
  for (const s of ctx.steps) {
    if (s.kind === 'map') checkMap(ctx, s, lookup);
    else if (s.kind === 'loop') checkLoop(ctx, s, lookup);
    else if (s.kind === 'return') checkReturn(ctx, s);
  }
}

function range(ctx: PipelineContext, s: StepInfo, path: string, key: string, v: number | undefined, lo: number, hi: number, required: boolean): void {
  if (v === undefined) {
    if (required) ctx.sink.error(s.path, `${where(ctx, s)}: '${key}' is required (${lo}..${hi}); a loop must have a bound`);
    return;
  }
  if (v < lo || v > hi) ctx.sink.error(`${s.path}.${path}`, `${where(ctx, s)}: '${key}' is ${v}; it must be within ${lo}..${hi}`);
}

function checkMap(ctx: PipelineContext, s: StepInfo, lookup: TypeLookup): void {
  const m = s.map!;
  if (m.over === undefined) ctx.sink.error(`${s.path}.map`, `${where(ctx, s)}: 'over' is required: the tensor whose first dimension is mapped`);
  else {
    const t = lookup(m.over);
    if (!t) ctx.sink.error(`${s.path}.map.over`, `${where(ctx, s)}: 'over' names tensor ${q(m.over)}, which is not produced before the map`);
    else if (t.full.length === 0) ctx.sink.error(`${s.path}.map.over`, `${where(ctx, s)}: 'over' tensor ${q(m.over)} is ${showType(t)}, a scalar; a map needs a list (a tensor with at least one dimension)`);
  }
  if (!m.as) ctx.sink.error(`${s.path}.map`, `${where(ctx, s)}: 'as' is required: the item's tensor name inside the map's steps`);
  range(ctx, s, 'map.concurrency', 'concurrency', m.concurrency, 1, LIMITS.mapConcurrency, false);
  range(ctx, s, 'map.max_items', 'max_items', m.max_items, 1, LIMITS.mapItems, false);
  if (Object.keys(m.outputs ?? {}).length === 0) ctx.sink.error(`${s.path}.map`, `${where(ctx, s)}: 'outputs' is empty; map item tensors to outer tensors (item -> outer)`);
}

function checkLoop(ctx: PipelineContext, s: StepInfo, lookup: TypeLookup): void {
  const l = s.loop!;
  range(ctx, s, 'loop.max', 'max', l.max, 1, LIMITS.loopMax, true);
  const carry = Object.entries(l.carry ?? {});
  const next = new Map(Object.entries(l.next ?? {}));
  if (carry.length === 0) ctx.sink.error(`${s.path}.loop`, `${where(ctx, s)}: 'carry' is empty; a loop carries at least one tensor (loop name -> outer tensor)`);
  for (const [c, from] of carry) {
    const t = lookup(from);
    if (!t) ctx.sink.error(`${s.path}.loop.carry.${c}`, `${where(ctx, s)}: carried ${q(c)} starts from tensor ${q(from)}, which is not produced before the loop`);
    const n = next.get(c);
    if (n === undefined) {
      ctx.sink.error(`${s.path}.loop.carry.${c}`, `${where(ctx, s)}: carried ${q(c)} has no 'next' entry; add next: { ${c}: <body tensor> }`);
      continue;
    }
    const nt = s.body?.types.get(n);
    if (t && nt && (t.datatype !== nt.datatype || !dimsCompatible(t.full, nt.full))) {
      ctx.sink.error(`${s.path}.loop.next.${c}`, `${where(ctx, s)}: next value of ${q(c)} (body tensor ${q(n)}) is ${showType(nt)} but ${q(c)} is ${showType(t)}; a carried tensor keeps one datatype and shape`);
    }
  }
  const names = carry.map(([c]) => c);
  for (const c of next.keys()) {
    if (!names.includes(c)) {
      const near = closest(c, names);
      ctx.sink.error(`${s.path}.loop.next.${c}`, `${where(ctx, s)}: 'next' names ${q(c)}, which is not carried${near ? `; did you mean ${q(near)}?` : `; carried: ${names.map(q).join(', ') || '(none)'}`}`);
    }
  }
  for (const c of Object.keys(l.outputs ?? {})) {
    if (!names.includes(c)) {
      const near = closest(c, names);
      ctx.sink.error(`${s.path}.loop.outputs.${c}`, `${where(ctx, s)}: 'outputs' names ${q(c)}, which is not carried${near ? `; did you mean ${q(near)}?` : ''}`);
    }
  }
}

function checkReturn(ctx: PipelineContext, s: StepInfo): void {
  const outputs = ctx.config.output.map((o) => o.name);
  for (const [name, v] of Object.entries(s.ret!.outputs ?? {})) {
    const path = `${s.path}.return.outputs.${name}`;
    if (!outputs.includes(name)) {
      const near = closest(name, outputs);
      ctx.sink.error(path, `${where(ctx, s)}: ${q(name)} is not an output of the pipeline${near ? `; did you mean ${q(near)}?` : `; its outputs are ${outputs.map(q).join(', ')}`}`);
      continue;
    }
    if ((v.tensor === undefined) === (v.value === undefined)) {
      ctx.sink.error(path, `${where(ctx, s)}: output ${q(name)} needs either a tensor name or { value: ... }`);
      continue;
    }
    if (v.value !== undefined) {
      const t = literalTensor(ctx.config, name, v.value);
      if (typeof t === 'string') ctx.sink.error(`${path}.value${v.value.length === 1 ? '[0]' : ''}`, `${where(ctx, s)}: ${t}`);
    }
  }
}
