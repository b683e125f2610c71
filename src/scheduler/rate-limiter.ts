import type { ModelInstanceGroup } from '../config/index.js';
import { Errors } from '../errors.js';

/** One `--rate-limit-resource <name>:<count>[:<device>]`; no device = every device. */
export interface RateLimitResource {
  readonly name: string;
  readonly count: number;
  readonly device?: number;
}

type Limits = NonNullable<ModelInstanceGroup['rate_limiter']>;

/**
 * Instances run on one CPU device here (Triton gives CPU instances device id 0), so a per-device
 * resource has one pool, keyed `0:<name>`; a global one is keyed `g:<name>`.
 */
const DEVICE = 0;
const keyOf = (name: string, global: boolean): string => (global ? `g:${name}` : `${DEVICE}:${name}`);

/**
 * One backend instance as the rate limiter sees it: the resources it holds while executing and
 * its priority. `acquire` runs `start` once the resources are granted (at once when free);
 * `release` returns them when the execution ends.
 */
export class LimitedInstance {
  execCount = 0;
  /** Staging order, breaking ties between equal scaled priorities (first staged goes first). */
  seq = 0;
  start: (() => void) | undefined;

  constructor(
    readonly limiter: RateLimiter,
    readonly model: string,
    readonly needs: ReadonlyMap<string, number>,
    readonly priority: number,
  ) {}

  /**
   * Triton's ScaledPriority: executions so far times the priority (0 counts as 1), lower first,
   * so an instance with priority 2 gets half the turns of one with priority 1 when both wait.
   */
  get scaled(): number {
    return this.execCount * Math.max(1, this.priority);
  }

  acquire(start: () => void): void {
    this.limiter.stage(this, start);
  }

  release(): void {
    this.limiter.release(this);
  }
}

/**
 * Triton's rate limiter (--rate-limit=execution_count), shared by every model of a server: an
 * instance executes only when every resource it names has that many copies free; instances
 * waiting for resources run in scaled-priority order, and the first in that order blocks the
 * others until it can run (Triton allocates only the top of its staging queue), so a large
 * request cannot be starved by small ones.
 *
 * Two differences from rate_limiter.cc, both deliberate: after a release every instance that can
 * now run does (Triton tries one per event, leaving the rest for the next release); equal scaled
 * priorities go by configured priority, then staging order (Triton's heap leaves ties unordered).
 * Like Triton, a BLS script that calls a model needing a resource its own instance holds waits
 * forever: give such models disjoint resources.
 */
export class RateLimiter {
  readonly #explicit: readonly RateLimitResource[];
  readonly #registered = new Set<LimitedInstance>();
  readonly #max = new Map<string, number>();
  readonly #allocated = new Map<string, number>();
  readonly #staged: LimitedInstance[] = [];
  #seq = 0;

  constructor(explicit: readonly RateLimitResource[] = []) {
    this.#explicit = explicit;
  }

  /**
   * Register a model's instances (one entry per instance: its group's rate_limiter). Fails, and
   * registers nothing, when the resources cannot fit (Triton's load-time checks).
   */
  register(model: string, limits: readonly (Limits | undefined)[]): LimitedInstance[] {
    const added = limits.map((l) => {
      const needs = new Map<string, number>();
      for (const r of l?.resources ?? []) if (r.count > 0) needs.set(keyOf(r.name, r.global), Math.max(r.count, needs.get(keyOf(r.name, r.global)) ?? 0));
      return new LimitedInstance(this, model, needs, l?.priority ?? 0);
    });
    for (const a of added) this.#registered.add(a);
    try {
      this.#recompute(model);
    } catch (e) {
      for (const a of added) this.#registered.delete(a);
      this.#recompute(model);
      throw e;
    }
    return added;
  }

  /** Forget instances of an unloaded model (their executions have ended). */
  unregister(instances: readonly LimitedInstance[]): void {
    for (const i of instances) this.#registered.delete(i);
    for (let k = this.#staged.length - 1; k >= 0; k--) if (!this.#registered.has(this.#staged[k]!)) this.#staged.splice(k, 1);
    this.#recompute('');
    this.#allocate();
  }

  /** Available copies of a resource (for tests and logs); undefined when no instance names it. */
  available(name: string, global = false): number | undefined {
    return this.#max.get(keyOf(name, global));
  }

  stage(i: LimitedInstance, start: () => void): void {
    i.start = start;
    i.seq = ++this.#seq;
    this.#staged.push(i);
    this.#allocate();
  }

  /**
   * The next allocation waits a microtask, so the released instance can re-stage first when its
   * model has queued work (the scheduler pumps on a microtask): then it competes by scaled
   * priority instead of always losing its turn.
   */
  release(i: LimitedInstance): void {
    i.execCount++;
    for (const [k, n] of i.needs) this.#allocated.set(k, (this.#allocated.get(k) ?? 0) - n);
    queueMicrotask(this.#allocateNow);
  }

  readonly #allocateNow = (): void => this.#allocate();

  #allocate(): void {
    while (this.#staged.length) {
      let best = 0;
      for (let k = 1; k < this.#staged.length; k++) if (before(this.#staged[k]!, this.#staged[best]!)) best = k;
      const top = this.#staged[best]!;
      for (const [k, n] of top.needs) if ((this.#allocated.get(k) ?? 0) + n > (this.#max.get(k) ?? 0)) return;
      this.#staged.splice(best, 1);
      for (const [k, n] of top.needs) this.#allocated.set(k, (this.#allocated.get(k) ?? 0) + n);
      const start = top.start!;
      top.start = undefined;
      start();
    }
  }

  /**
   * Triton's UpdateResourceLimits: each resource has the most any instance asks, or with
   * --rate-limit-resource the count given there (a resource not given has none, so an instance
   * naming it cannot load). A name cannot be both global and per-device.
   */
  #recompute(model: string): void {
    const max = new Map<string, number>();
    for (const i of this.#registered) for (const [k, n] of i.needs) max.set(k, Math.max(n, max.get(k) ?? 0));
    for (const k of max.keys()) {
      const name = k.slice(2);
      if (k.startsWith('g:') && max.has(keyOf(name, false))) throw Errors.rateLimitResourceScope(model, name);
    }
    if (this.#explicit.length) {
      for (const [k, need] of max) {
        const global = k.startsWith('g:');
        const name = k.slice(2);
        let given = 0;
        for (const r of this.#explicit) {
          if (r.name === name && (global || r.device === undefined || r.device === DEVICE)) given = Math.max(given, r.count);
        }
        if (given < need) throw Errors.rateLimitResourceShort(model, name, given, need);
        max.set(k, given);
      }
    }
    this.#max.clear();
    for (const [k, n] of max) this.#max.set(k, n);
  }
}

function before(a: LimitedInstance, b: LimitedInstance): boolean {
  if (a.scaled !== b.scaled) return a.scaled < b.scaled;
  const pa = Math.max(1, a.priority);
  const pb = Math.max(1, b.priority);
  return pa !== pb ? pa < pb : a.seq < b.seq;
}
