import { Errors } from '../errors.js';
import type { InferenceRequest } from './inference-request.js';

/**
 * One model waiting on a call further down the chain: a script holds one of its instances until
 * execute() returns, a pipeline with max_inflight_requests holds one of its slots until its run
 * ends. `slots` is how many such waits the model can hold at once (Infinity: never exhausted).
 */
export interface CallLink {
  readonly model: string;
  readonly slots: number;
  /** The setting that bounds `slots`, for the message ("instance_group count"). */
  readonly bound: string;
}

/**
 * The models a request's ancestors wait in, carried under a symbol: the server copies requests with
 * object spread, which keeps symbol-keyed properties, and no front end can set one. Every hop from
 * one model to another (a BLS call, a pipeline step, a map item, a loop iteration) passes it on.
 */
const CHAIN = Symbol('tributary.callChain');

type Chained = InferenceRequest & { [CHAIN]?: readonly CallLink[] };

export function callChainOf(request: InferenceRequest): readonly CallLink[] {
  return (request as Chained)[CHAIN] ?? [];
}

export function setCallChain(request: InferenceRequest, chain: readonly CallLink[]): void {
  if (chain.length > 0) (request as Chained)[CHAIN] = chain;
}

/**
 * A call to a model whose every instance (or slot) is held by an ancestor waiting on this very call
 * would wait forever: refuse it at once, naming the chain. Checked where every hop arrives (the
 * model's infer), so a cycle through pipelines, maps and loops is caught like a direct one.
 */
export function checkCallCycle(request: InferenceRequest, target: string): void {
  const chain = callChainOf(request);
  if (chain.length === 0) return;
  let held = 0;
  let link: CallLink | undefined;
  for (const l of chain) if (l.model === target) { held++; link = l; }
  if (link && held >= link.slots) {
    throw Errors.blsCycle(chain.at(-1)!.model, [...chain.map((l) => l.model), target], link.slots, link.bound);
  }
}
