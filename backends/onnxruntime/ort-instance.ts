import type { BackendInstance, BackendRequest, ExecuteTimings } from '../../src/backend/index.js';
import { Errors, TributaryError } from '../../src/errors.js';
import { concatBatch, formatShape, sliceBatch, type Tensor } from '../../src/tensor/index.js';
import { fromPlain, toPlain, type PlainTensor } from './ort-tensor.js';
import { toConfigShape, type OutputShapers } from './output-shapes.js';
import { batchInputFeed, raggedFeed, scatterBatchOutputs, type RaggedPlan } from './ragged-batch.js';
import type { SessionRunner } from './session-runner.js';

/** What an instance needs from the config, resolved once at load. */
export interface InstancePlan {
  readonly model: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** max_batch_size > 0: requests of a batch are stacked along dim 0 and run once. */
  readonly batched: boolean;
  /** Fed on every run as they are (parameter `constant_input.<name>`), never batched. */
  readonly constants?: readonly PlainTensor[];
  /** Ragged inputs, batch inputs and batch outputs (ragged-batch.ts), when the config has any. */
  readonly ragged?: RaggedPlan;
  /** Outputs whose config shape differs from the model's (output-shapes.ts). */
  readonly shapers?: OutputShapers;
}

const now = () => process.hrtime.bigint();

/**
 * Executes batches on one session: each input of the batch's requests is concatenated along dim 0
 * (one copy), the session runs once, and every output is split back per request as views.
 */
export function createOrtInstance(plan: InstancePlan, runner: SessionRunner): BackendInstance {
  return {
    async execute(batch) {
      const live: BackendRequest[] = [];
      for (const r of batch) {
        if (r.signal.aborted) r.fail(Errors.cancelled(plan.model));
        else live.push(r);
      }
      if (live.length === 0) return;
      if (plan.batched) return runGroup(plan, runner, live);
      // A model without a batch dimension runs its requests one by one.
      const total: ExecuteTimings = { computeInputNs: 0, computeInferNs: 0, computeOutputNs: 0 };
      for (const r of live) {
        const t = await runGroup(plan, runner, [r]);
        total.computeInputNs += t.computeInputNs;
        total.computeInferNs += t.computeInferNs;
        total.computeOutputNs += t.computeOutputNs;
      }
      return total;
    },
    finalize: () => runner.close(),
  };
}

function fail(plan: InstancePlan, group: readonly BackendRequest[], e: unknown): void {
  const msg = e instanceof Error ? e.message : String(e);
  const err = e instanceof TributaryError ? e : Errors.backendFailed(plan.model, `onnxruntime run failed: ${msg}`);
  for (const r of group) r.fail(err);
}

/** Outputs to fetch: the union of what the requests asked for, or all when any asked for all. */
function fetchList(plan: InstancePlan, group: readonly BackendRequest[]): string[] {
  if (group.some((r) => !r.request.outputs)) return [...plan.outputs];
  const want = new Set(group.flatMap((r) => r.request.outputs!.map((o) => o.name)));
  const list = plan.outputs.filter((o) => want.has(o));
  return list.length > 0 ? list : [...plan.outputs];
}

function gatherFeeds(plan: InstancePlan, group: readonly BackendRequest[]): PlainTensor[] {
  const feeds: PlainTensor[] = [];
  for (const name of plan.inputs) {
    const parts = group.map((r) => r.request.inputs.find((t) => t.name === name));
    const present = parts.filter((t): t is Tensor => t !== undefined);
    if (present.length === 0) continue; // an optional input nobody sent
    if (present.length !== parts.length) {
      throw Errors.backendFailed(plan.model, `input '${name}' is present in only ${present.length} of the ${parts.length} batched requests`);
    }
    if (plan.ragged?.ragged.has(name)) feeds.push(toPlain(raggedFeed(name, present)));
    else feeds.push(toPlain(present.length === 1 ? present[0]! : concatBatch(present, name)));
  }
  for (const b of plan.ragged?.batchInputs ?? []) {
    for (const target of b.target_name) feeds.push(toPlain(batchInputFeed(plan.model, b, target, group)));
  }
  // A fresh copy per run: a worker runner may transfer (detach) the buffers of an owned batch.
  for (const c of plan.constants ?? []) feeds.push({ ...c, data: c.data.slice() as PlainTensor['data'] });
  return feeds;
}

async function runGroup(plan: InstancePlan, runner: SessionRunner, group: readonly BackendRequest[]): Promise<ExecuteTimings> {
  const t0 = now();
  let feeds: PlainTensor[];
  const fetches = fetchList(plan, group);
  try {
    feeds = gatherFeeds(plan, group);
  } catch (e) {
    fail(plan, group, e);
    return { computeInputNs: Number(now() - t0), computeInferNs: 0, computeOutputNs: 0 };
  }
  const t1 = now();
  let results: PlainTensor[];
  try {
    results = await runner.run(feeds, fetches, group.length > 1);
  } catch (e) {
    fail(plan, group, e);
    return { computeInputNs: Number(t1 - t0), computeInferNs: Number(now() - t1), computeOutputNs: 0 };
  }
  const t2 = now();
  try {
    let outputs = results.map(fromPlain);
    if (plan.shapers) outputs = outputs.map((o) => toConfigShape(plan.shapers!, plan.batched, o));
    let scattered: Tensor[][] | undefined;
    if (plan.ragged?.batchOutputs.size) {
      scattered = scatterBatchOutputs(plan.model, plan.ragged, outputs, group);
      outputs = outputs.filter((o) => !plan.ragged!.batchOutputs.has(o.name));
    }
    if (group.length === 1) {
      send(group[0]!, scattered ? [...outputs, ...scattered[0]!] : outputs);
    } else {
      const rows = group.reduce((n, r) => n + r.batchSize, 0);
      const bad = outputs.find((o) => o.shape[0] !== rows);
      if (bad) throw Errors.backendFailed(plan.model, `output '${bad.name}' has shape ${formatShape(bad.shape)}, expected ${rows} rows for the batch`);
      let offset = 0;
      for (const [k, r] of group.entries()) {
        const sliced = outputs.map((o) => sliceBatch(o, offset, r.batchSize));
        send(r, scattered ? [...sliced, ...scattered[k]!] : sliced);
        offset += r.batchSize;
      }
    }
  } catch (e) {
    fail(plan, group, e);
  }
  return { computeInputNs: Number(t1 - t0), computeInferNs: Number(t2 - t1), computeOutputNs: Number(now() - t2) };
}

/**
 * Send every fetched output: the model keeps only the ones this request asked for (a batch fetches
 * the union), and a sequence batcher may need state outputs nobody asked for.
 */
function send(r: BackendRequest, outputs: Tensor[]): void {
  r.send({ outputs }, true);
}
