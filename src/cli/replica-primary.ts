/**
 * `serve --replicas N`'s primary: it loads no model. It forks N replicas (node:cluster: each loads
 * the repository and accepts connections itself from the HTTP and gRPC ports' listening sockets,
 * which the primary opens and shares with them), replaces one that exits (createRestartTracker), runs repository control on all of
 * them (createBroadcast), serves the one metrics port with their metrics summed, and on
 * SIGTERM/SIGINT passes the signal to each, which drains as a single server does.
 *
 * Why node:cluster: Node 20's net module cannot set SO_REUSEPORT (the `reusePort` listen option
 * came in Node 22.12), so several processes can share a port only through a primary that owns it.
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { Gauge, Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import { aggregateMetrics, listenMetrics, registerSystemMetrics, type MetricsJson } from '../metrics/index.js';
import { createBroadcast, type Member } from './replica-broadcast.js';
import type { ToPrimary, ToReplica } from './replica-messages.js';
import type { PrivatePorts } from '../frontend/forward/index.js';
import { createRestartTracker, type RestartPolicy } from './replica-restarts.js';
import { startBanner, type BannerModel, type Listener } from './start-banner.js';
import { stopSignal } from './stop-on-signal.js';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));
/** A replica that does not answer a scrape within this is left out of that page. */
const SCRAPE_TIMEOUT_MS = 5000;

export interface PrimaryOptions {
  replicas: number;
  /** `serve`'s arguments, given to each replica as they are. */
  argv: readonly string[];
  /** Absent with --allow-metrics=false. */
  metrics?: { port: number; host: string; cpu: boolean; intervalMs: number };
  banner: { version: string; id: string; strictReadiness: boolean };
  restartPolicy?: RestartPolicy;
}

interface Replica extends Member {
  worker: Worker;
  forkedAt: number;
  upAt?: number;
  startMs?: number;
  up?: { listeners: Listener[]; models: BannerModel[]; ready: boolean; ports: PrivatePorts };
}

export async function runPrimary(o: PrimaryOptions, log: Logger): Promise<number> {
  const replicas = new Map<number, Replica>();
  const broadcast = createBroadcast();
  const restartAfter = createRestartTracker(o.restartPolicy);
  const timers = new Set<NodeJS.Timeout>();
  const scrapes = new Map<number, { replica: Replica; resolve(json: MetricsJson): void }>();
  let nextScrape = 1;
  let stopping = false;
  let bannerShown = false;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((r) => (finish = r));
  let exitCode = 0;

  const own = new Registry();
  const stopSampling = o.metrics ? registerSystemMetrics(own, { cpu: o.metrics.cpu, intervalMs: o.metrics.intervalMs }) : () => undefined;
  new Gauge({
    name: 'tributary_replicas', help: 'Replicas of serve --replicas: configured, and alive (listening)',
    labelNames: ['state'], registers: [own],
    collect() {
      this.set({ state: 'configured' }, o.replicas);
      this.set({ state: 'alive' }, [...replicas.values()].filter((r) => r.up).length);
    },
  });
  const ask = (r: Replica) => new Promise<MetricsJson>((resolve) => {
    const id = nextScrape++;
    const timer = setTimeout(() => done([]), SCRAPE_TIMEOUT_MS);
    const done = (json: MetricsJson) => { clearTimeout(timer); scrapes.delete(id); resolve(json); };
    scrapes.set(id, { replica: r, resolve: done });
    r.send({ t: 'metrics?', id });
  });
  const metricsServer = o.metrics
    ? await listenMetrics(o.metrics, async () => aggregateMetrics([
      ...(await Promise.all([...replicas.values()].filter((r) => r.up).map(ask))),
      await own.getMetricsAsJSON(),
    ]))
    : undefined;

  // Each replica accepts from the shared listening sockets itself: with round-robin (node's default
  // on Linux) the primary accepts and passes each connection to a replica, and closes its copy only
  // when the replica confirms; a replica killed in between leaves that connection open in the
  // primary, unread and unanswered, for good. Frozen by setupPrimary, so set before it.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  // Structured clone: a load request's files are bytes.
  cluster.setupPrimary({ exec: BIN, args: ['serve', ...o.argv], serialization: 'advanced' });

  const showBanner = () => {
    const all = [...replicas.values()].sort((a, b) => a.slot - b.slot);
    const first = all[0]?.up;
    if (bannerShown || all.length < o.replicas || !first || all.some((r) => !r.up)) return;
    bannerShown = true;
    const listeners = [...first.listeners, ...(metricsServer && o.metrics ? [{ name: 'metrics', host: o.metrics.host, port: metricsServer.port, path: '/metrics' }] : [])];
    log.info(startBanner({
      ...o.banner, listeners, models: first.models, ready: all.every((r) => r.up?.ready),
      replicas: all.map((r) => ({ pid: r.pid, startMs: r.startMs ?? 0 })),
    }));
  };

  // Who serves which slot's sequences: a replica that dies leaves its slot empty (its sequences get
  // UNAVAILABLE) until its replacement, which takes the slot, announces its own ports.
  const sendOwners = () => {
    const table: Record<number, PrivatePorts> = {};
    for (const r of replicas.values()) if (r.up) table[r.slot] = r.up.ports;
    for (const r of replicas.values()) if (r.up) r.send({ t: 'owners', table });
  };

  const onMessage = (r: Replica, m: ToPrimary) => {
    switch (m.t) {
      case 'loaded': broadcast.join(r); break;
      case 'up':
        r.up = { listeners: m.listeners, models: m.models, ready: m.ready, ports: m.ports };
        sendOwners();
        r.startMs = Date.now() - r.forkedAt;
        r.upAt = Date.now();
        if (bannerShown) log.info(`replica ${r.slot} (pid ${r.pid}) is serving, started in ${r.startMs} ms (${broadcast.size()} repository control(s) replayed)`);
        showBanner();
        break;
      case 'control': broadcast.control(r, m.id, m.op); break;
      case 'applied': broadcast.applied(r, m.id, m.error); break;
      case 'metrics': scrapes.get(m.id)?.resolve(m.json); break;
    }
  };

  const stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const t of timers) clearTimeout(t);
    timers.clear();
    for (const r of replicas.values()) r.worker.process.kill(signal);
    if (replicas.size === 0) finish(exitCode);
  };

  const onExit = (r: Replica, code: number | null, signal: string | null) => {
    replicas.delete(r.slot);
    broadcast.leave(r);
    if (r.up && !stopping) sendOwners();
    for (const s of scrapes.values()) if (s.replica === r) s.resolve([]);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (stopping) {
      if (code !== null && code !== 0) exitCode = 1;
      if (replicas.size === 0) finish(exitCode);
      return;
    }
    if (!bannerShown) {
      // As a single server: a start that fails (a model that does not load, a port in use) is the command's failure.
      log.error(`replica ${r.slot} (pid ${r.pid}) exited with ${how} before every replica was serving; stopping the others`);
      exitCode = code && code > 0 ? code : 1;
      stopAll('SIGTERM');
      return;
    }
    const decision = restartAfter(Date.now() - (r.upAt ?? r.forkedAt));
    if (!decision.restart) {
      log.error(`replica ${r.slot} (pid ${r.pid}) exited with ${how}; ${decision.quickFailures} replicas in a row died soon after starting, so the server gives up: stopping the others and exiting 1`);
      exitCode = 1;
      stopAll('SIGTERM');
      return;
    }
    log.warn(`replica ${r.slot} (pid ${r.pid}) exited unexpectedly with ${how}; starting a replacement in ${decision.delayMs} ms`);
    const timer = setTimeout(() => { timers.delete(timer); fork(r.slot); }, decision.delayMs);
    timers.add(timer);
  };

  const fork = (slot: number) => {
    const worker = cluster.fork({ TRIBUTARY_REPLICA: String(slot) });
    const r: Replica = {
      slot, worker, pid: worker.process.pid ?? 0, forkedAt: Date.now(),
      send: (m: ToReplica) => { if (worker.isConnected()) worker.send(m); },
    };
    replicas.set(slot, r);
    worker.on('message', (m: ToPrimary) => onMessage(r, m));
    worker.on('exit', (code, signal) => onExit(r, code, signal));
    // A send to a replica that is exiting fails with EPIPE; its 'exit' follows and is what counts.
    worker.on('error', (e: Error) => log.verbose(1, `replica ${slot} (pid ${r.pid}): ${e.message}`));
  };

  for (let slot = 1; slot <= o.replicas; slot++) fork(slot);
  void stopSignal(log).then((signal) => {
    log.info(`${signal} received: passing it to the ${replicas.size} replica(s); each drains (--exit-timeout-secs) and exits`);
    stopAll(signal);
  });
  const code = await finished;
  stopSampling();
  await metricsServer?.close();
  log.info(code === 0 ? 'stopped: every replica exited' : `stopped: exit ${code}`);
  return code;
}
