import type { BatchRequest, Outlet, ResponseBody } from './batch-request.js';

type Held = { response: ResponseBody; final: boolean } | { error: unknown };

/**
 * preserve_ordering: responses leave in the order requests were dispatched, across instances.
 * The oldest unfinished request streams straight through; later ones are held until every
 * earlier request has finished. Dispatch order is arrival order except where priority levels or
 * unequal shapes reorder the queue, as in Triton, whose completion queue is also filled at
 * dispatch.
 */
export class OrderingGate implements Outlet {
  readonly #next: Outlet;
  readonly #order: BatchRequest[] = [];
  #head = 0;
  readonly #held = new Map<BatchRequest, Held[]>();

  constructor(next: Outlet) {
    this.#next = next;
  }

  /** Register requests in dispatch order, before their batch executes. */
  admit(r: BatchRequest): void {
    this.#order.push(r);
  }

  send(r: BatchRequest, response: ResponseBody, final: boolean): void {
    if (this.#order[this.#head] === r) {
      this.#next.send(r, response, final);
      if (final) this.#advance();
    } else this.#hold(r, { response, final });
  }

  fail(r: BatchRequest, error: unknown): void {
    if (this.#order[this.#head] === r) {
      this.#next.fail(r, error);
      this.#advance();
    } else this.#hold(r, { error });
  }

  #hold(r: BatchRequest, h: Held): void {
    const list = this.#held.get(r);
    if (list) list.push(h);
    else this.#held.set(r, [h]);
  }

  #advance(): void {
    for (;;) {
      this.#head++;
      const r = this.#order[this.#head];
      if (!r) break;
      const held = this.#held.get(r);
      if (held) {
        this.#held.delete(r);
        for (const h of held) {
          if ('error' in h) this.#next.fail(r, h.error);
          else this.#next.send(r, h.response, h.final);
        }
      }
      if (!r.finished) break;
    }
    // Compact now and then so the array does not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
