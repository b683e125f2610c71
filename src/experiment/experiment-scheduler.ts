/**
 * The scheduler of an experiment model: each request is routed to one variant (weighted, or
 * sticky on a stable hash), relayed there through the host like a pipeline step, and its
 * responses come back naming the variant. A copy may go to the mirror once the variant admitted
 * the request. Nothing queues here: the variant's own scheduler queues and batches.
 */
import type { Subscription } from 'rxjs';
import type { ModelHost } from '../backend/index.js';
import { callChainOf, setCallChain, type CallLink, type InferenceRequest, type InferenceResponse } from '../inference/index.js';
import { abortReason, stoppedError, type Scheduler, type SchedulerHooks, type WorkItem } from '../scheduler/index.js';
import type { ExperimentPlan, PlanVariant } from './experiment-plan.js';
import { createMirror, type MirrorOutcome } from './create-mirror.js';
import { pickVariant, routingKey, stablePoint } from './pick-variant.js';
import type { RoutingHeaders } from './routing-headers.js';

/** Response parameters naming who answered (docs/experiments.md). */
const VARIANT_PARAMETER = 'experiment_variant';
const VARIANT_VERSION_PARAMETER = 'experiment_variant_version';

export interface ExperimentSchedulerOptions {
  host: ModelHost;
  /** The model's statistics hooks: a request starts when it is routed and ends with its variant's last answer. */
  hooks?: SchedulerHooks;
  /** [0, 1): the choice of a request with no routing key, and of its mirror copy (tests inject one). */
  random?: () => number;
  /** A request was routed to `variant` (the plan's variant object, reused as the metrics record). */
  onRoute?: (variant: PlanVariant) => void;
  onMirror?: (outcome: MirrorOutcome) => void;
  /** Where the sticky header is asked for while the experiment is loaded. */
  routingHeaders?: RoutingHeaders;
}

export function createExperimentScheduler(plan: ExperimentPlan, o: ExperimentSchedulerOptions): Scheduler {
  const { host, hooks, onRoute } = o;
  const random = o.random ?? Math.random;
  const name = plan.name;
  const mirror = plan.mirror ? createMirror(plan.mirror, host, random, o.onMirror ?? (() => undefined)) : undefined;
  const release = plan.sticky && 'header' in plan.sticky ? o.routingHeaders?.add(plan.sticky.header) : undefined;
  // The experiment waits on its variant but holds nothing a call could exhaust: a link for the
  // call chain's messages, never a reason to refuse (checkCallCycle).
  const link: CallLink = { model: name, slots: Infinity, bound: 'experiment' };
  const running = new Set<WorkItem>();
  let stopped = false;
  let idle: (() => void) | undefined;

  /** Relay one request to `v`; true when the variant admitted it (did not refuse it at once). */
  function relay(item: WorkItem, v: PlanVariant, chain: readonly CallLink[]): boolean {
    running.add(item);
    hooks?.onBatchStart?.([item], 0);
    // The item's own signal stays here: unsubscribing cancels the variant (the host contract).
    const { signal: _own, version: _asked, ...rest } = item.request;
    const req: InferenceRequest = rest;
    req.model = v.model;
    if (v.version !== undefined) req.version = v.version;
    setCallChain(req, chain);
    // A captured request records the variant's call under its own record, as a step's.
    const rec = item.request.capture?.open('variant', v.variant, v.model, item.request.inputs);
    if (rec) req.capture = rec;
    let ended = false;
    let subscribing = true;
    let refused = false;
    let sub: Subscription | undefined;
    const finish = () => {
      ended = true;
      item.signal.removeEventListener('abort', onAbort);
      running.delete(item);
      hooks?.onBatchEnd?.([item], undefined, 0);
      if (running.size === 0) idle?.();
    };
    const onAbort = () => {
      if (ended) return;
      finish();
      sub?.unsubscribe();
      rec?.cancel();
      item.fail(abortReason(item.signal, name));
    };
    item.signal.addEventListener('abort', onAbort, { once: true });
    sub = host.infer(req).subscribe({
      next: (r) => {
        if (ended) return;
        rec?.respond(r.outputs, r.version);
        answer(item, v, r);
      },
      error: (e: unknown) => {
        if (ended) return;
        if (subscribing) refused = true;
        rec?.end(e);
        finish();
        item.fail(e);
      },
      complete: () => {
        if (ended) return;
        rec?.end();
        finish();
        item.send(null, true); // a no-op after the variant's final response
      },
    });
    subscribing = false;
    if (ended) sub.unsubscribe();
    return !refused;
  }

  return {
    enqueue(item: WorkItem): void {
      if (item.done) return;
      if (stopped) return item.fail(stoppedError(name));
      if (item.signal.aborted) return item.fail(abortReason(item.signal, name));
      const key = routingKey(plan, item.request);
      const v = pickVariant(plan, key === undefined ? random() : stablePoint(key));
      onRoute?.(v);
      item.trace?.note?.('tributary.experiment_variant', v.variant);
      const copy = mirror?.wants(item.request, key) === true;
      const chain = [...callChainOf(item.request), link];
      if (relay(item, v, chain) && copy) mirror!.send(item.request, chain);
    },
    inflightCount: () => running.size,
    stop(): Promise<void> {
      stopped = true;
      release?.();
      mirror?.stop();
      if (running.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        idle = resolve;
      });
    },
  };
}

/**
 * A variant's response as the experiment's: its outputs unchanged, its parameters plus the
 * variant's name and the version that answered. The empty final response that closes a decoupled
 * stream stays empty.
 */
function answer(item: WorkItem, v: PlanVariant, r: InferenceResponse): void {
  if (r.final && r.outputs.length === 0 && r.parameters === undefined) {
    item.send(null, true);
    return;
  }
  item.send({ outputs: r.outputs, parameters: { ...r.parameters, [VARIANT_PARAMETER]: v.model, [VARIANT_VERSION_PARAMETER]: r.version } }, r.final);
}
