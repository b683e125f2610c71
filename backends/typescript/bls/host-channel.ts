import { SCRATCH_BYTES, Scratch } from './scratch.js';
import type { HostChannel, QueuedSend, WireChildRequest, WireError, WireResponse } from './wire.js';

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
  response(r: WireResponse, final: boolean): void;
  error(e: WireError): void;
  complete(): void;
}

export const children = new Map<number, ChildReceiver>();
let nextChild = 1;
export function nextChildId(): number {
  return nextChild++;
}

/** The call (execute invocation) whose code is running, so BLS calls know their parent. */
export const current = { callId: 0 };

/**
 * Child starts made in one synchronous run (Promise.all over exec() calls) go to the host together
 * at the next microtask, in one callback: the host then starts them in one event-loop turn and
 * they join the callee's dynamic batch, as they did when scripts ran on the host's thread.
 */
const pending: [number, number, WireChildRequest][] = [];

function flush(): void {
  if (pending.length) host().infer(pending.splice(0));
}

export function startChild(callId: number, childId: number, w: WireChildRequest): void {
  // (the sandbox has no queueMicrotask)
  if (pending.push([callId, childId, w]) === 1) void Promise.resolve().then(flush);
}

/** Cancel a child; a start still waiting goes first, so the host sees the two in order. */
export function cancelChild(childId: number): void {
  flush();
  host().cancel(childId);
}

/**
 * Decoupled responses go to the host the same way: queued, and sent in one callback per
 * synchronous run. Each synchronous callback is a thread round trip (the script runs off the main
 * thread); one per response cut a 2000-response stream from 41k to 13k responses/s. Queued
 * responses travel as wire objects (the scratch buffer would be overwritten by the next one).
 * The queue is bounded so a script sending in a long synchronous loop cannot outrun memory, and it
 * is flushed before anything the host must see after these responses (completion, isCancelled).
 */
const SEND_BATCH = 256;
const sends: QueuedSend[] = [];

export function flushSends(): void {
  if (sends.length) host().sendMany(sends.splice(0));
}

export function queueSend(callId: number, index: number, w: WireResponse | null, final: boolean): void {
  const n = sends.push([callId, index, w, final]);
  if (n >= SEND_BATCH) flushSends();
  else if (n === 1) void Promise.resolve().then(flushSends);
}
