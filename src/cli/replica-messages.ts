/**
 * What `serve --replicas` primary and replicas say to each other over node:cluster's IPC channel
 * (structured clone, so a load request's file contents pass as bytes).
 */
import { TributaryError, isErrorKind, toTributaryError } from '../errors.js';
import type { LoadOptions } from '../server/index.js';
import type { MetricsJson } from '../metrics/index.js';
import type { BannerModel, Listener } from './start-banner.js';
import type { PrivatePorts } from '../frontend/forward/index.js';

/** A repository control request, applied on every replica. */
export type ControlOp =
  | { kind: 'load'; name: string; options: LoadOptions }
  | { kind: 'unload'; name: string; options: { unloadDependents?: boolean } };

export interface WireError { code: string; kind: string; message: string; httpStatus?: number }

/** Replica to primary. */
export type ToPrimary =
  /** Its repository is loaded (the models it was told to load at start): it may now be sent controls. */
  | { t: 'loaded' }
  /** Listening: its front ends' addresses and its models, for the start banner; its private ports, to be forwarded sequences. */
  | { t: 'up'; listeners: Listener[]; models: BannerModel[]; ready: boolean; ports: PrivatePorts }
  /** A control request one of its front ends received, to run on every replica. */
  | { t: 'control'; id: number; op: ControlOp }
  | { t: 'applied'; id: number; error?: WireError }
  | { t: 'metrics'; id: number; json: MetricsJson };

/** Primary to replica. */
export type ToReplica =
  /** id < 0: a replay of an earlier control for a replica that started later; nobody waits for it. */
  | { t: 'apply'; id: number; op: ControlOp }
  /** Every control done before this replica joined has been sent: it may listen once they are applied. */
  | { t: 'synced' }
  | { t: 'controlled'; id: number; error?: WireError }
  | { t: 'metrics?'; id: number }
  /** Every serving replica's private ports by slot, sent whenever one comes up or goes. */
  | { t: 'owners'; table: Record<number, PrivatePorts> };

export function errorToWire(e: unknown): WireError {
  const err = toTributaryError(e);
  return { code: err.code, kind: err.kind, message: err.message, ...(err.httpStatus === undefined ? {} : { httpStatus: err.httpStatus }) };
}

/** The replica's catalog error, rebuilt on this side of the channel with its code and kind. */
export function errorFromWire(w: WireError): TributaryError {
  return new TributaryError(w.code, isErrorKind(w.kind) ? w.kind : 'INTERNAL', w.message, w.httpStatus === undefined ? undefined : { httpStatus: w.httpStatus });
}

export function describeOp(op: ControlOp): string {
  return `${op.kind} of model '${op.name}'`;
}
