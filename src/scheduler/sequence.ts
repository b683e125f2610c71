import type { Tensor } from '../tensor/index.js';
import { BatchRequest } from './batch-request.js';
import type { TimerHandle } from './clock.js';
import { ItemList } from './item-list.js';
import { QueuedEntry } from './queued-entries.js';
import type { WorkItem } from './scheduler.js';

/** A queued request of a sequence. */
export class SequenceEntry extends QueuedEntry {
  constructor(item: WorkItem, readonly seq: Sequence, readonly arrival: number) {
    super(item);
  }
}

/** One live sequence (correlation ID): its queued requests, its place on an instance, its state. */
export class Sequence {
  readonly queue = new ItemList<SequenceEntry>();
  /** The request executing now; a sequence runs one request at a time, in order. */
  running: BatchRequest | undefined;
  /** Instance and place (batch slot, or candidate place for the oldest strategy); -1 in the backlog. */
  lane = -1;
  place = -1;
  /** Implicit state by input name; undefined means "initial". */
  state: Map<string, Tensor> | undefined;
  /** The last accepted request carried END: only a START may follow. */
  endSeen = false;
  idleSince: number | undefined;
  idleTimer: TimerHandle | undefined;
  constructor(readonly id: bigint | string) {}

  get idle(): boolean {
    return this.running === undefined && this.queue.size === 0;
  }
}

/** A batch request that knows its sequence. */
export class SequenceRequest extends BatchRequest {
  readonly seq: Sequence;
  constructor(seq: Sequence, ...rest: ConstructorParameters<typeof BatchRequest>) {
    super(...rest);
    this.seq = seq;
  }
}
