import { appendFile, writeFile } from 'node:fs/promises';
import type { Logger } from '../logger.js';

/**
 * One trace file, written as tritonserver writes it. With log frequency 0 every trace goes to
 * `path`, a JSON array opened by the first trace and closed ("]") by close(); with log frequency N,
 * every N traces make one complete array in `<path>.<index>` (index from 0), and close() writes the
 * rest to the next index. Traces are buffered and written by one asynchronous write at a time, so a
 * traced request never waits on the disk.
 */
export class TraceFile {
  readonly path: string;
  readonly #logFrequency: number;
  readonly #log: Logger;
  #pending: string[] = [];
  #index = 0;
  #opened = false;
  #scheduled = false;
  #writes: Promise<void> = Promise.resolve();
  #failed = false;

  constructor(path: string, logFrequency: number, log: Logger) {
    this.path = path;
    this.#logFrequency = logFrequency;
    this.#log = log;
  }

  /** One finished trace: its JSON objects joined by commas. */
  add(trace: string): void {
    this.#pending.push(trace);
    if (this.#logFrequency > 0) {
      if (this.#pending.length >= this.#logFrequency) this.#writeIndexed();
    } else if (!this.#scheduled) {
      // One write per turn of the event loop, whatever the number of traces finished in it.
      this.#scheduled = true;
      setImmediate(() => this.#append());
    }
  }

  /** Write what is buffered, close the array, and resolve once everything is on disk. */
  async close(): Promise<void> {
    if (this.#logFrequency > 0) {
      if (this.#pending.length > 0) this.#writeIndexed();
    } else {
      this.#append();
      if (this.#opened) this.#queue(() => appendFile(this.path, ']\n'));
      this.#opened = false;
    }
    await this.#writes;
  }

  #writeIndexed(): void {
    const text = `[${this.#pending.join(',')}]\n`;
    this.#pending = [];
    const file = `${this.path}.${this.#index++}`;
    this.#queue(() => writeFile(file, text));
  }

  #append(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0) return;
    const text = this.#pending.join(',');
    this.#pending = [];
    if (this.#opened) {
      this.#queue(() => appendFile(this.path, `,${text}`));
    } else {
      this.#opened = true;
      this.#queue(() => writeFile(this.path, `[${text}`));
    }
  }

  #queue(write: () => Promise<void>): void {
    this.#writes = this.#writes.then(write).catch((e: unknown) => {
      // Once per file: a full disk would otherwise log one line per trace.
      if (this.#failed) return;
      this.#failed = true;
      this.#log.warn(`cannot write trace file '${this.path}': ${(e as Error).message}; traces for it are lost (set trace_file to a writable path)`);
    });
  }
}
