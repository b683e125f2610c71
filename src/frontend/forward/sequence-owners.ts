/**
 * Which replica of `serve --replicas N` owns a sequence: slot 1 + hash(id) mod N, the hash over the
 * id's string form (decimal for a number), so that every replica, and every protocol, picks the
 * same one. Replicas accept connections, not requests; a sequence whose requests come over
 * several connections must still meet its state, which lives in one process.
 */

/** The loopback ports a replica serves besides the shared ones; requests there are never forwarded. */
export interface PrivatePorts { http?: number; grpc?: number }

/** The HTTP header and gRPC metadata key the client SDK sends with every sequence request (src/client/routing-key.ts). */
export const ROUTING_HEADER = 'tributary-sequence-id';

export interface SequenceOwners {
  /** This replica's slot (1..N). */
  readonly slot: number;
  /** The slot owning sequence `key`, or undefined when it is this replica's own. */
  ownerOf(key: string): number | undefined;
  /** The owner's private ports; undefined while it is down (crashed and not yet replaced). */
  portsOf(slot: number): PrivatePorts | undefined;
  /** The primary's slot -> ports table, replaced whole on every change. */
  setTable(table: Readonly<Record<number, PrivatePorts>>): void;
}

/** FNV-1a (32 bit) over UTF-16 code units: stable across processes and versions, and cheap. */
export function sequenceHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function createSequenceOwners(slot: number, replicas: number): SequenceOwners {
  let table: Readonly<Record<number, PrivatePorts>> = {};
  return {
    slot,
    ownerOf: (key) => {
      const owner = 1 + (sequenceHash(key) % replicas);
      return owner === slot ? undefined : owner;
    },
    portsOf: (s) => table[s],
    setTable: (t) => { table = t; },
  };
}

/**
 * A sequence id's string form, or undefined for a request outside a sequence: Triton treats
 * sequence id 0 (and "") as no sequence.
 */
export function sequenceKey(id: unknown): string | undefined {
  if (typeof id === 'string') return id === '' ? undefined : id;
  if (typeof id === 'number' || typeof id === 'bigint') return id == 0 ? undefined : String(id);
  return undefined;
}

/** The routing header's value (percent-encoded by the client SDK) as a key, or undefined. */
export function routingKeyOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
