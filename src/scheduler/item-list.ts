/** A node that can sit in one `ItemList` at a time (intrusive, so removal is O(1)). */
export interface ListNode {
  prev: ListNode | undefined;
  next: ListNode | undefined;
  /** The list holding the node; only compared by identity (see `ItemList.has`). */
  list: object | undefined;
}

/**
 * An intrusive doubly linked FIFO. Queued requests leave from the middle all the time (timeouts,
 * cancellation, priority moves), so an array's O(n) splice would sit on the request path.
 */
export class ItemList<T extends ListNode> {
  head: T | undefined;
  tail: T | undefined;
  size = 0;

  push(n: T): void {
    n.list = this;
    n.prev = this.tail;
    n.next = undefined;
    if (this.tail) this.tail.next = n;
    else this.head = n;
    this.tail = n;
    this.size++;
  }

  remove(n: T): void {
    if (n.list !== this) return;
    if (n.prev) n.prev.next = n.next;
    else this.head = n.next as T | undefined;
    if (n.next) n.next.prev = n.prev;
    else this.tail = n.prev as T | undefined;
    n.prev = n.next = undefined;
    n.list = undefined;
    this.size--;
  }

  /** True while `n` sits in this list (a node already taken out by a timeout or cancel is not). */
  has(n: T): boolean {
    return n.list === this;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    // Read `next` before yielding: the caller may remove the node it is given.
    for (let n = this.head; n; ) {
      const next = n.next as T | undefined;
      yield n;
      n = next;
    }
  }
}
