/**
 * The primary's half of repository control under `serve --replicas`: a load or unload one replica
 * received is sent to every replica that has joined, in one order for all, and answered with the
 * combined result; each is also kept, so a replica started later applies them before it listens.
 */
import { type ControlOp, type ToReplica, type WireError } from './replica-messages.js';

export interface Member {
  slot: number;
  pid: number;
  send(m: ToReplica): void;
}

interface Pending {
  origin: Member;
  originId: number;
  waiting: Set<Member>;
  failures: { member: Member; error: WireError }[];
}

export interface Broadcast {
  /** A replica finished loading at start: replay the history to it; later controls reach it too. */
  join(m: Member): void;
  /** A replica exited: it is no longer waited for (its replacement replays the control). */
  leave(m: Member): void;
  control(origin: Member, id: number, op: ControlOp): void;
  applied(from: Member, id: number, error: WireError | undefined): void;
  /** Controls applied since start, for the log. */
  size(): number;
}

export function createBroadcast(): Broadcast {
  const members = new Set<Member>();
  const history: ControlOp[] = [];
  const pending = new Map<number, Pending>();
  let nextId = 1;

  const settle = (id: number, p: Pending) => {
    if (p.waiting.size > 0) return;
    pending.delete(id);
    // The first failure in replica order, so the answer does not depend on which replica was quickest.
    const first = [...p.failures].sort((a, b) => a.member.slot - b.member.slot)[0];
    const error = first ? { ...first.error, message: `replica ${first.member.slot} (pid ${first.member.pid}): ${first.error.message}` } : undefined;
    p.origin.send({ t: 'controlled', id: p.originId, ...(error ? { error } : {}) });
  };

  return {
    join: (m) => {
      for (const op of history) m.send({ t: 'apply', id: -1, op });
      m.send({ t: 'synced' });
      members.add(m);
    },
    leave: (m) => {
      members.delete(m);
      for (const [id, p] of pending) {
        if (p.waiting.delete(m)) settle(id, p);
      }
    },
    control: (origin, originId, op) => {
      // Kept before it is sent: a replica that joins from now on replays it, one that joined already gets it now.
      history.push(op);
      const id = nextId++;
      const p: Pending = { origin, originId, waiting: new Set(members), failures: [] };
      pending.set(id, p);
      for (const m of members) m.send({ t: 'apply', id, op });
      settle(id, p);
    },
    applied: (from, id, error) => {
      const p = pending.get(id);
      if (!p || !p.waiting.delete(from)) return;
      if (error) p.failures.push({ member: from, error });
      settle(id, p);
    },
    size: () => history.length,
  };
}
