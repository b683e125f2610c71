import type { BackendRequest } from '../backend/index.js';
import type { CancelSignal, InferenceRequest, Parameters } from '../inference/index.js';
import type { Tensor } from '../tensor/index.js';
import type { WorkItem } from './scheduler.js';

export type ResponseBody = { outputs: Tensor[]; parameters?: Parameters } | null;

/** Where a batch request's responses go: straight to the item, or through a gate or state capture. */
export interface Outlet {
  send(r: BatchRequest, response: ResponseBody, final: boolean): void;
  fail(r: BatchRequest, error: unknown): void;
}

/** The last outlet of every chain: the work item itself. */
export const toItem: Outlet = {
  send: (r, response, final) => r.item.send(response, final),
  fail: (r, error) => r.item.fail(error),
};

/**
 * What a backend instance receives for one queued item. It may carry a different request than the
 * item (the sequence batcher adds control and state inputs), and it knows when the backend has
 * finished with it, which the scheduler needs for in-flight counts, ordering and sequence slots.
 */
export class BatchRequest implements BackendRequest {
  readonly item: WorkItem;
  readonly request: InferenceRequest;
  finished = false;
  readonly #outlet: Outlet;
  readonly #onFinish: (r: BatchRequest) => void;

  constructor(item: WorkItem, request: InferenceRequest, outlet: Outlet, onFinish: (r: BatchRequest) => void) {
    this.item = item;
    this.request = request;
    this.#outlet = outlet;
    this.#onFinish = onFinish;
  }

  get batchSize(): number {
    return this.item.batchSize;
  }

  get signal(): CancelSignal {
    return this.item.signal;
  }

  send(response: ResponseBody, final: boolean): void {
    if (this.finished) return;
    if (final) this.finished = true;
    this.#outlet.send(this, response, final);
    if (final) this.#onFinish(this);
  }

  fail(error: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.#outlet.fail(this, error);
    this.#onFinish(this);
  }
}
