/**
 * A replica's side of `serve --replicas`: it answers the primary's metrics requests, applies the
 * repository controls the primary sends (the ones done before it started first), and hands its
 * front ends a server whose load/unload run on every replica through the primary.
 */
import cluster from 'node:cluster';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { LocalServer } from '../server/index.js';
import { toTributaryError } from '../errors.js';
import { describeOp, errorFromWire, errorToWire, type ControlOp, type ToPrimary, type ToReplica } from './replica-messages.js';
import type { BannerModel, Listener } from './start-banner.js';
import type { PrivatePorts, SequenceOwners } from '../frontend/forward/index.js';

/** The response header naming the replica (its pid) that answered, so an operator can tell them apart. */
export const REPLICA_HEADER = 'tributary-replica';

export interface ReplicaLink {
  /** What the front ends serve: `server`, with load/unload applied on every replica. */
  server: LocalServer;
  /** Resolves once the controls done before this replica started are applied (it may then listen). */
  synced: Promise<void>;
  setMetrics(registry: Registry): void;
  up(listeners: Listener[], models: BannerModel[], ready: boolean, ports: PrivatePorts): void;
}

/**
 * The replica's last step, however `serve` ended: the IPC channel would keep the process alive, and
 * node:cluster ends a replica whose channel closes unplanned with code 0 at once; a planned
 * disconnect lets it exit with its own code.
 */
export function leavePrimary(): void {
  if (cluster.worker?.isConnected()) cluster.worker.disconnect();
}

export function joinPrimary(server: LocalServer, explicit: boolean, owners: SequenceOwners, log: Logger): ReplicaLink {
  const send = (m: ToPrimary) => { if (process.connected) process.send?.(m); };
  const waiting = new Map<number, { resolve(): void; reject(e: Error): void }>();
  let nextId = 1;
  let registry: Registry | undefined;
  let markSynced = () => undefined as void;
  const synced = new Promise<void>((r) => (markSynced = r));
  // One at a time, in the primary's order: every replica then sees the same sequence of controls.
  let queue = Promise.resolve();
  const apply = (op: ControlOp) => (op.kind === 'load' ? server.loadModel(op.name, op.options) : server.unloadModel(op.name, op.options));

  const onMessage = (raw: unknown) => {
    const m = raw as ToReplica;
    switch (m.t) {
      case 'apply':
        queue = queue.then(() => apply(m.op).then(() => undefined, (e: unknown) => e)).then((e) => {
          if (m.id >= 0) send({ t: 'applied', id: m.id, ...(e === undefined ? {} : { error: errorToWire(e) }) });
          else if (e !== undefined) log.warn(`replaying the ${describeOp(m.op)} done before this replica started: ${toTributaryError(e).message}`);
        });
        break;
      case 'synced':
        queue = queue.then(markSynced);
        break;
      case 'controlled': {
        const w = waiting.get(m.id);
        waiting.delete(m.id);
        if (m.error) w?.reject(errorFromWire(m.error));
        else w?.resolve();
        break;
      }
      case 'metrics?':
        void (registry ? registry.getMetricsAsJSON() : Promise.resolve([])).then(
          (json) => send({ t: 'metrics', id: m.id, json }),
          () => send({ t: 'metrics', id: m.id, json: [] }),
        );
        break;
      case 'owners':
        owners.setTable(m.table);
        break;
    }
  };
  process.on('message', onMessage);
  send({ t: 'loaded' });

  const viaPrimary = (op: ControlOp) => new Promise<void>((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    send({ t: 'control', id, op });
  });
  return {
    // Outside explicit mode the server's own refusal (TRB_..._CONTROL_DISABLED) is the answer.
    server: {
      ...server,
      loadModel: (name, options) => (explicit ? viaPrimary({ kind: 'load', name, options: options ?? {} }) : server.loadModel(name, options)),
      unloadModel: (name, options) => (explicit ? viaPrimary({ kind: 'unload', name, options: options ?? {} }) : server.unloadModel(name, options)),
    },
    synced,
    setMetrics: (r) => { registry = r; },
    up: (listeners, models, ready, ports) => send({ t: 'up', listeners, models, ready, ports }),
  };
}
