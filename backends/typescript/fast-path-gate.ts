import type { Logger } from '../../src/logger.js';

/** Weight of the newest execute() entry in the running average (about the last 8 count). */
const ALPHA = 1 / 8;
/**
 * A call takes the main thread only while recent entries averaged at most this share of the bound.
 * Half, not less: an entry on the pool thread reads about 250 µs of isolate CPU time for a script
 * that computes 25 µs (the thread hop is counted), so a quarter of a 1 ms bound left langid's steps
 * flapping between the two paths at the threshold.
 */
const SHARE = 1 / 2;
/** Calls kept on the isolate thread after a first or rare stop (see stop()). */
const PAUSE = 8;
/** Calls kept on the isolate thread after a stop soon after another; doubles with each, up to 64 << 10. */
const COOLDOWN = 64;
/**
 * A stop after at least this many fast entries since the previous one (or the first) is a rare long
 * entry of a script that is fast otherwise: garbage collection or compiling landing in one entry
 * (measured 1 in about 6000 continuations of a BLS loop, at 1.6-11 ms of CPU time), or the thread
 * preempted on a loaded machine (a 6 µs echo was stopped many times in 20k calls at load 15). It
 * costs a pause of PAUSE calls, where a doubling cooldown would keep such a script off for
 * thousands. Stops sooner than this one after another, whatever their cause, double the cooldown:
 * a script that turned slow, or a machine so loaded that the fast path loses (a stopped BLS call is
 * re-run with every child answer entered again on the pool thread, so frequent stops cost more than
 * the path saves: measured 554 µs per call against 309 µs off it, before stops escalated).
 */
const RARE_AFTER = 1024;

/**
 * Decides, per instance, whether a call's execute() entry runs synchronously on the main thread
 * (the fast path, parameter fast_path_ms) or on isolated-vm's pool thread. A synchronous entry
 * costs about 3 µs where the thread hop costs 60 µs or more, but it holds the event loop, so only a
 * script whose recent entries were short takes it, and isolated-vm stops it at the bound. Entries
 * are timed on both paths (wall time of the synchronous part of execute(), which on the pool path
 * also holds the hop: that only keeps a borderline script off); an instance starts on the pool
 * path and joins the fast one after its first short call. After a stop the instance stays off for
 * a cooldown, so a script whose calls are sometimes long pays for a stop rarely.
 */
export class FastPathGate {
  /** Time a fast entry may run before isolated-vm stops it (0: fast path off). */
  readonly boundMs: number;
  /** Stops in a row, each soon after the previous one (they set the cooldown). */
  #stopped = 0;
  readonly #label: string;
  readonly #log: Logger;
  #averageMs = Infinity;
  #cooldown = 0;
  #on = false;
  #warm = false;
  /** Fast entries since the last stop (RARE_AFTER). */
  #sinceStop = 0;
  /** A logged stop's cooldown runs: its end is logged too. */
  #cooling = false;

  constructor(boundMs: number, label: string, log: Logger) {
    this.boundMs = boundMs;
    this.#label = label;
    this.#log = log;
  }

  /** What take() would answer, without counting a call (a delivery decides whether to wait for the loop). */
  get open(): boolean {
    return this.boundMs > 0 && this.#cooldown === 0 && this.#averageMs <= this.boundMs * SHARE;
  }

  /** A call that could have asked went to the isolate thread: it counts against a cooldown as take() would. */
  pass(): void {
    if (this.#cooldown > 0) this.#cooldown--;
  }

  /** True: run this call's execute() (or a continuation of it) on the main thread. */
  take(): boolean {
    if (this.boundMs === 0) return false;
    if (this.#cooldown > 0) { this.#cooldown--; return false; }
    const on = this.#averageMs <= this.boundMs * SHARE;
    if (on !== this.#on) {
      this.#on = on;
      this.#log.verbose(1, `${this.#label}: execute() ${on ? 'now runs on the main thread' : 'back on its isolate thread'} (recent calls averaged ${this.#us()} µs, fast_path_ms ${this.boundMs})`);
    }
    if (on && this.#cooling) {
      this.#cooling = false;
      this.#log.verbose(1, `${this.#label}: execute() now runs on the main thread again, after its cooldown (recent calls averaged ${this.#us()} µs, fast_path_ms ${this.boundMs})`);
    }
    if (on) this.#sinceStop++;
    return on;
  }

  /** An execute() entry (its synchronous part) used `ms` of the isolate's CPU time. */
  record(ms: number): void {
    // The first call compiles the script's code as it runs (0.7 ms for an echo that later takes
    // 0.06): it says nothing of the calls to come.
    if (!this.#warm) { this.#warm = true; return; }
    // Capped at the bound: what an entry is past it says no more (an entry on the main thread is
    // stopped there), and one rare long reading (15 ms, measured, among BLS continuations whose
    // p99 is 0.1 ms) would otherwise hold the average past half the bound for dozens of entries.
    const capped = Math.min(ms, this.boundMs);
    this.#averageMs = this.#averageMs === Infinity ? capped : this.#averageMs + (capped - this.#averageMs) * ALPHA;
  }

  /**
   * An execute() entry on the pool thread used `ms` of the isolate's CPU time, the thread hop
   * included (250 µs for a script computing 25 µs, and several times that on a loaded machine).
   * It decides whether an instance joins the fast path; once on it, only entries on the main thread
   * (measured without the hop) move the average, or a loaded machine would push a fast script off
   * the path it is on.
   */
  recordPool(ms: number): void {
    if (!this.#on) this.record(ms);
  }

  /**
   * A fast entry was stopped at the bound after `ms` of wall time, `cpuMs` of it computing (under
   * half the bound: the thread was preempted, the bound being wall time). A first or rare stop
   * pauses the fast path; stops soon after one another keep the instance off for a cooldown that
   * doubles with each (RARE_AFTER). The cooldown is the whole penalty: raising the average as well
   * left the instance to come back on pool-thread readings, which hold the hop (500 µs and more
   * for a BLS loop's entries even on a quiet machine) and kept a fast script off for good.
   */
  stop(_ms: number, cpuMs: number): void {
    const fastBefore = this.#sinceStop;
    this.#sinceStop = 0;
    const preempted = cpuMs < this.boundMs / 2;
    const why = preempted ? ` after ${cpuMs.toFixed(2)} ms of CPU time (the thread was preempted)` : '';
    if (this.#stopped === 0 || fastBefore >= RARE_AFTER) {
      this.#stopped = 1;
      this.#cooldown = PAUSE;
      if (preempted) {
        this.#log.verbose(2, `${this.#label}: execute() stopped at fast_path_ms${why}; re-run on its isolate thread, which the next ${PAUSE} calls also use`);
        return;
      }
      this.#cooling = true;
      this.#log.verbose(1, `${this.#label}: execute() ran past fast_path_ms (${this.boundMs} ms) on the main thread and was stopped after ${fastBefore} fast entries; ` +
        `re-run on its isolate thread, which the next ${PAUSE} calls also use`);
      return;
    }
    this.#stopped++;
    this.#cooldown = COOLDOWN << Math.min(this.#stopped - 2, 10);
    this.#cooling = true;
    this.#log.verbose(1, `${this.#label}: execute() ran past fast_path_ms (${this.boundMs} ms) on the main thread and was stopped${why}, ${fastBefore} fast entries after the previous stop; ` +
      `re-run on its isolate thread, which the next ${this.#cooldown} calls also use`);
  }

  #us(): string {
    return (this.#averageMs * 1000).toFixed(0);
  }
}
