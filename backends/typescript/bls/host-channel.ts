import { SCRATCH_BYTES, Scratch } from './scratch.js';
import type { HostChannel, WireError, WireResponse } from './wire.js';

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
