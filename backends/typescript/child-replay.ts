import { DELIVER_RESPONSE, type WireChildRequest, type WireError, type WireResponse, type WireTensor } from './bls/wire.js';

/**
 * What a call's BLS children answered, kept while the call lives, so that a call whose
 * continuation was stopped on the main thread (script-isolate.ts) can be re-run from the start on
 * its isolate thread without calling its children again: the re-run's k-th child, when it asks
 * for exactly what the stopped run's k-th child asked for, is answered from the record (or joins
 * that child, still in flight). A re-run that asks for something else calls for real from there
 * on, and the stopped run's unclaimed children are cancelled. Side effects of a child (a sequence
 * model's state, another script's counters) thus happen once per child the script's logic makes.
 *
 * Kept within bounds per call: past them the call stops recording, and its continuations stay on
 * the isolate thread, where nothing stops them.
 */
export const REPLAY_MAX_BYTES = 1 << 20;
export const REPLAY_MAX_CHILDREN = 256;

/** One delivery to the sandbox, as script-isolate.ts#deliver takes it. */
export type Delivery = [kind: number, payload: WireResponse | WireError | null, final: boolean];

/** One child on the host: where its deliveries go, and what it delivered when its call records. */
export class ChildLink {
  readonly wire: WireChildRequest;
  /** The sandbox's ids for it; undefined while it waits for a re-run to claim it. */
  to: { callId: number; childId: number } | undefined;
  /** Deliveries so far, while its call records. */
  deliveries: Delivery[] | undefined;
  /** The log recording it. */
  log: ChildLog | undefined;
  ended = false;
  cancel: () => void = () => {};

  constructor(wire: WireChildRequest, callId: number, childId: number) {
    this.wire = wire;
    this.to = { callId, childId };
  }

  /** A delivery arrived: kept while its call records. */
  delivered(d: Delivery): void {
    if (d[0] !== DELIVER_RESPONSE || d[2]) this.ended = true;
    if (this.deliveries) {
      this.deliveries.push(d);
      this.log?.counted(d);
    }
  }
}

/** The children of one call, in the order it started them, while the call records. */
export class ChildLog {
  readonly links: ChildLink[] = [];
  #bytes = 0;
  #recording = true;

  /** False once the call went past the bounds: nothing is kept, and it must not be re-run. */
  get recording(): boolean {
    return this.#recording;
  }

  add(link: ChildLink): void {
    if (!this.#recording) return;
    if (this.links.length >= REPLAY_MAX_CHILDREN) { this.stop(); return; }
    link.deliveries = [];
    link.log = this;
    this.links.push(link);
    this.#count(link.wire.inputs);
  }

  counted(d: Delivery): void {
    const p = d[1] as WireResponse | null;
    if (p && Array.isArray(p.outputs)) this.#count(p.outputs);
  }

  /** Stop recording: what was kept goes (links in flight keep routing their deliveries). */
  stop(): void {
    this.#recording = false;
    for (const l of this.links) { l.deliveries = undefined; l.log = undefined; }
    this.links.length = 0;
  }

  #count(tensors: readonly WireTensor[]): void {
    for (const t of tensors) this.#bytes += t.data?.byteLength ?? 0;
    if (this.#bytes > REPLAY_MAX_BYTES) this.stop();
  }
}

/** The same request, down to the input bytes (asked only of a re-run's children). */
export function sameChildRequest(a: WireChildRequest, b: WireChildRequest): boolean {
  if (a.model !== b.model || a.version !== b.version || a.parent !== b.parent || a.timeout !== b.timeout || a.priority !== b.priority) return false;
  if (String(a.correlationId) !== String(b.correlationId) || a.sequenceStart !== b.sequenceStart || a.sequenceEnd !== b.sequenceEnd) return false;
  if (JSON.stringify(a.outputs) !== JSON.stringify(b.outputs) || !sameJson(a.parameters, b.parameters)) return false;
  if (a.inputs.length !== b.inputs.length) return false;
  return a.inputs.every((x, i) => sameTensor(x, b.inputs[i]!));
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) === JSON.stringify(b, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  } catch {
    return false;
  }
}

function sameTensor(a: WireTensor, b: WireTensor): boolean {
  if (a.name !== b.name || a.datatype !== b.datatype || a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) return false;
  const x = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const y = new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength);
  return Buffer.compare(x, y) === 0;
}
