import type { BackendInstance, BackendRequest, ExecuteTimings } from '../../src/backend/index.js';
import type { InferenceRequest, SequenceFlags } from '../../src/inference/index.js';
import type { ModelConfig } from '../../src/config/index.js';
import type { WorkItem } from '../../src/scheduler/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';

/** Let queued microtasks and promise callbacks run (the batchers pump on a microtask). */
/**
 * Let the scheduler run: dispatch happens on a microtask, or on a setImmediate once an event-loop
 * turn has run past its budget (src/scheduler/schedule-soon.ts), so wait two macrotask turns.
 */
export const flush = async (): Promise<void> => {
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
};

export function modelConfig(over: Partial<ModelConfig> = {}): ModelConfig {
  return {
    name: 'm', platform: '', backend: 'test', runtime: '', version_policy: { latest: { num_versions: 1 } },
    max_batch_size: 8, input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [1] }], output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [1] }],
    batch_input: [], batch_output: [], instance_group: [], default_model_filename: '', cc_model_filenames: {},
    metric_tags: {}, parameters: {}, model_warmup: [], model_transaction_policy: { decoupled: false },
    ...over,
  };
}

export type Event = { kind: 'response'; outputs: Tensor[]; final: boolean } | { kind: 'error'; error: Error & { code?: string; kind?: string } };

/** A WorkItem double: records what the scheduler and backend tell it. */
export class TestItem implements WorkItem {
  readonly request: InferenceRequest;
  readonly batchSize: number;
  readonly batchKey: string;
  readonly priority: number;
  readonly deadline?: number;
  readonly enqueuedAt: number;
  readonly abort = new AbortController();
  readonly events: Event[] = [];
  done = false;

  constructor(readonly label: string, o: {
    now?: number; rows?: number; key?: string; priority?: number; deadline?: number; timeoutUs?: number;
    sequence?: SequenceFlags; value?: number; log?: string[];
  } = {}) {
    const rows = o.rows ?? 1;
    this.request = {
      model: 'm', id: label, inputs: [createTensor('IN', 'FP32', [rows, 1], new Array(rows).fill(o.value ?? 0))],
      ...(o.timeoutUs !== undefined ? { timeoutUs: o.timeoutUs } : {}),
      ...(o.sequence ? { sequence: o.sequence } : {}),
    };
    this.batchSize = rows;
    this.batchKey = o.key ?? '[1]';
    this.priority = o.priority ?? 0;
    if (o.deadline !== undefined) this.deadline = o.deadline;
    this.enqueuedAt = o.now ?? 0;
    this.log = o.log;
  }

  readonly log: string[] | undefined;

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  send(response: { outputs: Tensor[] } | null, final: boolean): void {
    if (this.done) return;
    this.events.push({ kind: 'response', outputs: response?.outputs ?? [], final });
    this.log?.push(`${this.label}:${final ? 'final' : 'part'}`);
    if (final) this.done = true;
  }

  fail(error: unknown): void {
    if (this.done) return;
    this.events.push({ kind: 'error', error: error as Error });
    this.log?.push(`${this.label}:error`);
    this.done = true;
  }

  /** The error code it failed with, or undefined. */
  get errorCode(): string | undefined {
    const e = this.events.find((x) => x.kind === 'error');
    return e?.kind === 'error' ? e.error.code : undefined;
  }

  get responded(): boolean {
    return this.events.some((e) => e.kind === 'response' && e.final);
  }
}

interface Pending {
  batch: readonly BackendRequest[];
  resolve: (t?: ExecuteTimings) => void;
  reject: (e: unknown) => void;
}

/**
 * A BackendInstance double. Batches stay running until the test completes them, so the test
 * decides exactly when an instance is free. `respond` builds each request's outputs.
 */
export class TestInstance implements BackendInstance {
  readonly batches: (readonly BackendRequest[])[] = [];
  readonly pending: Pending[] = [];
  finalized = false;
  respond: (r: BackendRequest) => Tensor[] = (r) => [{ ...r.request.inputs[0]!, name: 'OUT' }];

  constructor(readonly index = 0) {}

  execute(batch: readonly BackendRequest[]): Promise<ExecuteTimings | void> {
    this.batches.push(batch);
    return new Promise((resolve, reject) => this.pending.push({ batch, resolve, reject }));
  }

  /** Answer every request of the oldest running batch and free the instance. */
  async complete(timings?: ExecuteTimings): Promise<void> {
    const p = this.pending.shift();
    if (!p) throw new Error(`instance ${this.index} has no running batch`);
    for (const r of p.batch) r.send({ outputs: this.respond(r) }, true);
    p.resolve(timings);
    await flush();
  }

  async rejectBatch(error: unknown): Promise<void> {
    this.pending.shift()!.reject(error);
    await flush();
  }

  /** Labels (request ids) of each batch executed so far. */
  get labels(): string[][] {
    return this.batches.map((b) => b.map((r) => r.request.id ?? '?'));
  }

  get busy(): boolean {
    return this.pending.length > 0;
  }

  async finalize(): Promise<void> {
    this.finalized = true;
  }
}
