import { SCRATCH_BYTES, Scratch } from './scratch.js';
import type { HostChannel, WireChildRequest, WireError, WireResponse } from './wire.js';

/**
 * The sandbox side of the host channel. The host installs `__trb_host` before the bundle runs; it
 * is taken off the global object here so scripts see no trace of it.
 */
const g = globalThis as unknown as { __trb_host?: HostChannel };
const channel: HostChannel | undefined = g.__trb_host;
delete g.__trb_host;

/** The shared buffer of the fast lane (a private one outside a sandbox, where nothing reads it). */
export const scratch = new Scratch(channel?.scratch ?? new ArrayBuffer(SCRATCH_BYTES));

export function host(): HostChannel {
  if (!channel) throw new Error("tributary/bls runs only inside a Tributary sandbox (import types with 'import type')");
  return channel;
}

/** Receivers of child-call notifications, by child id. */
export interface ChildReceiver {
  /** The call that made it: a call the host stopped and re-runs drops its receivers (entry.ts). */
  callId: number;
  response(r: WireResponse, final: boolean): void;
  error(e: WireError): void;
  complete(): void;
}

export const children = new Map<number, ChildReceiver>();
let nextChild = 1;
export function nextChildId(): number {
  return nextChild++;
}

/**
 * The running entry was made synchronously on the host's main thread (the fast path): child starts
 * then go by a synchronous callback, which costs no thread hop there and spares the event-loop
 * turn a fire-and-forget one waits for (13 µs of the 55 µs a sequential BLS call cost, measured);
 * the host holds them and starts them as soon as the entry has returned.
 */
export const onLoop = { now: false };

/** The call (execute invocation) whose code is running, so BLS calls know their parent. */
export const current = { callId: 0 };

/**
 * Child starts made in one synchronous run (Promise.all over exec() calls) go to the host together
 * at the next microtask, in one callback: the host then starts them in one event-loop turn and
 * they join the callee's dynamic batch, as they did when scripts ran on the host's thread.
 */
const pending: [number, number, WireChildRequest][] = [];

function flush(): void {
  if (!pending.length) return;
  if (onLoop.now) host().inferNow(pending.splice(0));
  else host().infer(pending.splice(0));
}

export function startChild(callId: number, childId: number, w: WireChildRequest): void {
  // (the sandbox has no queueMicrotask)
  if (pending.push([callId, childId, w]) === 1) void Promise.resolve().then(flush);
}

/**
 * A call the host stopped goes (entry.ts): its waiting starts are dropped, and the others go now.
 * A stop inside a microtask checkpoint loses the microtasks still queued, the flush among them,
 * which would leave `pending` non-empty and every later start waiting forever.
 */
export function discardStarts(callId: number): void {
  const keep = pending.filter(([c]) => c !== callId);
  pending.length = 0;
  if (keep.length) host().infer(keep);
}

/** Cancel a child; a start still waiting goes first, so the host sees the two in order. */
export function cancelChild(childId: number): void {
  flush();
  host().cancel(childId);
}
