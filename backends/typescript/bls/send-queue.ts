import { host } from './host-channel.js';
import { ModelError } from './model-error.js';
import { SLOT_CLOSED, SLOT_PAUSED, type QueuedSend, type WireResponse } from './wire.js';

/**
 * Decoupled responses go to the host queued, in one callback per burst of sends. Each synchronous
 * callback is a thread round trip (the script runs off the main thread); one per response cut a
 * 2000-response stream from 41k to 13k responses/s. Queued responses travel as wire objects (the
 * scratch buffer would be overwritten by the next one). The queue is flushed at SEND_BATCH
 * responses or SEND_BATCH_BYTES of tensor data, when a microtask passes without a new send (so a
 * script awaiting each send still sends in batches), and before anything the host must see after
 * these responses (completion, isCancelled).
 *
 * Backpressure: the host answers each flush with the requests whose client is not taking their
 * responses (SLOT_PAUSED) or that are gone (SLOT_CLOSED). A send to a paused request is still
 * delivered, but its promise waits until the host resumes the request (`resume`, an entry of its
 * own), so a script that awaits its sends waits for its client, at most one batch ahead. A send to
 * a closed request is dropped and its promise rejects (CANCELLED), which stops an awaiting script.
 * A script that does not await is bounded by the front end instead (TRB_STREAM_BUFFER_FULL).
 */
const SEND_BATCH = 256;
const SEND_BATCH_BYTES = 64 * 1024;
const sends: QueuedSend[] = [];
let batchBytes = 0;
/**
 * Sends ever queued, and the count a pending flush last saw: it waits while they differ. A script's
 * `await` on a settled promise resumes one microtask after the flush was queued, so the flush only
 * goes once two microtasks in a row brought no new send.
 */
let queued = 0;
let seen = 0;
let idle = 0;
let ticking = false;

/** What the host said about a request: paused until resumed, or closed for good. */
interface Gate {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
  closed: boolean;
}

const gates = new Map<number, Map<number, Gate>>();
let gateCount = 0;
/** Closed gates kept so that later sends are dropped; past this many they are forgotten (the host drops them too). */
const MAX_GATES = 1024;
const RESOLVED = Promise.resolve();

function gate(callId: number, index: number): Gate | undefined {
  return gateCount === 0 ? undefined : gates.get(callId)?.get(index);
}

function openGate(callId: number, index: number): Gate {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((a, b) => { resolve = a; reject = b; });
  // A send nobody awaits must not leave an unhandled rejection behind.
  promise.catch(() => {});
  const g: Gate = { promise, resolve, reject, closed: false };
  let m = gates.get(callId);
  if (!m) gates.set(callId, (m = new Map()));
  m.set(index, g);
  if (++gateCount > MAX_GATES) forgetClosed();
  return g;
}

function dropGate(callId: number, index: number): void {
  const m = gates.get(callId);
  if (m?.delete(index)) {
    gateCount--;
    if (m.size === 0) gates.delete(callId);
  }
}

function forgetClosed(): void {
  for (const [callId, m] of gates) for (const [index, g] of m) if (g.closed) dropGate(callId, index);
}

function close(g: Gate, index: number): void {
  g.closed = true;
  g.reject(new ModelError(`request ${index} is closed: its client cancelled it, or the server ended it; stop sending its responses`, 'CANCELLED'));
}

function tensorBytes(w: WireResponse): number {
  let n = 64;
  for (const t of w.outputs) n += t.data.byteLength;
  return n;
}

export function flushSends(): void {
  if (!sends.length) return;
  batchBytes = 0;
  const states = host().sendMany(sends.splice(0));
  if (!states) return;
  for (let k = 0; k + 2 < states.length; k += 3) {
    const callId = states[k]!;
    const index = states[k + 1]!;
    const g = gate(callId, index);
    if (states[k + 2] === SLOT_PAUSED) {
      if (!g) openGate(callId, index);
    } else if (states[k + 2] === SLOT_CLOSED) {
      if (!g) close(openGate(callId, index), index);
      else if (!g.closed) close(g, index);
    }
  }
}

function tick(): void {
  if (sends.length && (queued !== seen || ++idle < 2)) {
    if (queued !== seen) idle = 0;
    seen = queued;
    void Promise.resolve().then(tick);
    return;
  }
  ticking = false;
  flushSends();
}

/** ResponseSender.send: queue one response; the promise settles as described above. */
export function queueSend(callId: number, index: number, w: WireResponse | null, final: boolean): Promise<void> {
  const g = gate(callId, index);
  if (g?.closed) return g.promise;
  sends.push([callId, index, w, final]);
  queued++;
  if (w) batchBytes += tensorBytes(w);
  if (sends.length >= SEND_BATCH || batchBytes >= SEND_BATCH_BYTES) flushSends();
  else if (!ticking) {
    ticking = true;
    seen = queued;
    idle = 0;
    void Promise.resolve().then(tick);
  }
  if (!g) return RESOLVED;
  // The request ends with this response: nothing is left to wait for.
  if (final) {
    dropGate(callId, index);
    g.resolve();
    return RESOLVED;
  }
  return g.promise;
}

/**
 * A call the host stopped goes (entry.ts): its queued responses are dropped (the host has seen
 * none, or it would not re-run the call) and the others go now, since a stop inside a microtask
 * checkpoint loses the queued microtasks, the pending flush (`tick`) among them.
 */
export function discardSends(callId: number): void {
  const keep = sends.filter(([c]) => c !== callId);
  sends.length = 0;
  sends.push(...keep);
  ticking = false;
  flushSends();
  const m = gates.get(callId);
  if (m) { gateCount -= m.size; gates.delete(callId); }
}

/** The host resumes a paused request (`open`), or tells it is gone. */
export function resume(callId: number, index: number, open: boolean): void {
  const g = gate(callId, index);
  if (!g || g.closed) return;
  if (open) {
    dropGate(callId, index);
    g.resolve();
  } else {
    close(g, index);
  }
}
