/**
 * The local sink: JSON Lines appended to `capture-<time>-<pid>-<n>.jsonl` in the capture directory
 * (0700; each file 0600, created exclusively, never through a symlink). A file past `file-bytes` is
 * closed and a new one started; past `files` of this process's files the oldest is deleted, so a
 * server holds at most files x file-bytes on disk (each replica its own files). Lines wait in memory
 * for the disk up to `queue-bytes`; past that they are dropped and counted.
 */
import { mkdirSync, statSync, chmodSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Errors } from '../errors.js';
import type { Logger } from '../logger.js';
import { confinePath } from '../paths/index.js';
import type { CaptureQueue } from './capture-queue.js';
import type { CaptureSettings } from './capture-settings.js';
import type { CaptureSink } from './create-capture.js';

/** How long close() waits for lines still on their way to the disk. */
const CLOSE_WAIT_MS = 5000;

/** The capture directory, made private: created 0700, or an existing one of ours narrowed to 0700. */
export function prepareCaptureDir(dir: string): string {
  const abs = resolve(dir);
  const fail = (why: string) => Errors.captureDirUnusable(dir, why);
  try {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
  } catch (e) {
    // EEXIST: a file of that name, told apart below.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw fail(`cannot create it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const st = statSync(abs);
  if (!st.isDirectory()) throw fail('it is not a directory');
  if (process.getuid && st.uid !== process.getuid()) throw fail('it belongs to another user; captured tensors are private, give a directory of the server\'s own');
  if ((st.mode & 0o077) !== 0) {
    try {
      chmodSync(abs, 0o700);
    } catch (e) {
      throw fail(`cannot make it private (0700): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  return abs;
}

export async function openFileSink(dir: string, settings: CaptureSettings, queue: CaptureQueue, log: Logger): Promise<CaptureSink> {
  const root = prepareCaptureDir(dir);
  const sink = new FileSink(root, settings, queue, log);
  await sink.rotate();
  return sink;
}

const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace('.', '');

class FileSink implements CaptureSink {
  readonly name = 'dir';
  readonly #root: string;
  readonly #s: CaptureSettings;
  readonly #queue: CaptureQueue;
  readonly #log: Logger;
  #pending: string[] = [];
  /** Each pending line's UTF-8 size with its newline, measured once. */
  #sizes: number[] = [];
  #pendingBytes = 0;
  #file: FileHandle | undefined;
  #size = 0;
  #seq = 0;
  readonly #mine: string[] = [];
  #writing: Promise<void> | undefined;
  #failing = false;
  #closed = false;

  constructor(root: string, s: CaptureSettings, queue: CaptureQueue, log: Logger) {
    this.#root = root;
    this.#s = s;
    this.#queue = queue;
    this.#log = log;
  }

  write(_records: unknown, lines: readonly string[]): void {
    if (this.#closed) {
      this.#queue.drop(this.name, lines.length);
      return;
    }
    let dropped = 0;
    for (const l of lines) {
      const n = Buffer.byteLength(l) + 1;
      if (this.#pendingBytes + n > this.#s.queueBytes) { dropped++; continue; }
      this.#pending.push(l);
      this.#sizes.push(n);
      this.#pendingBytes += n;
    }
    if (dropped) this.#queue.drop(this.name, dropped);
    this.#writing ??= this.#pump().finally(() => { this.#writing = undefined; });
  }

  /** Closes the current file and opens the next, deleting this process's oldest past `files`. */
  async rotate(): Promise<void> {
    await this.#file?.close().catch(() => undefined);
    this.#file = undefined;
    const name = `capture-${stamp()}-${process.pid}-${this.#seq++}.jsonl`;
    const path = await confinePath(this.#root, name, 'capture file', { inside: 'the capture directory', noFinalSymlink: true });
    // 'wx': created here or not at all, so a file (or link) put in its place is never written through.
    this.#file = await open(path, 'wx', 0o600);
    this.#size = 0;
    this.#mine.push(path);
    while (this.#mine.length > this.#s.files) await unlink(this.#mine.shift()!).catch(() => undefined);
  }

  async #pump(): Promise<void> {
    while (this.#pending.length > 0) {
      const lines = this.#pending;
      const sizes = this.#sizes;
      this.#pending = [];
      this.#sizes = [];
      this.#pendingBytes = 0;
      let i = 0;
      while (i < lines.length) {
        const from = i;
        if (this.#closed) {
          this.#queue.drop(this.name, lines.length - from);
          break;
        }
        try {
          if (!this.#file || this.#size >= this.#s.fileBytes) await this.rotate();
          // One write per file's worth of lines: a file ends once it reaches file-bytes.
          let chunk = '';
          let n = 0;
          while (i < lines.length && (n === 0 || this.#size + n < this.#s.fileBytes)) {
            chunk += lines[i] + '\n';
            n += sizes[i]!;
            i++;
          }
          await this.#file!.appendFile(chunk);
          this.#size += n;
          this.#queue.wrote(this.name, i - from);
          if (this.#failing) this.#log.info(`capture: writing to ${this.#root} again`);
          this.#failing = false;
        } catch (e) {
          // The batch's remaining lines go too: the next batch tries a fresh file.
          this.#queue.drop(this.name, lines.length - from);
          i = lines.length;
          if (!this.#failing) this.#log.warn(`capture: cannot write to ${this.#root} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); records are dropped until it can`);
          this.#failing = true;
          await this.#file?.close().catch(() => undefined);
          this.#file = undefined;
        }
      }
    }
  }

  async close(): Promise<void> {
    if (this.#writing) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#writing, new Promise((r) => { timer = setTimeout(r, CLOSE_WAIT_MS); })]);
      clearTimeout(timer);
    }
    this.#closed = true;
    // Lines the disk did not take in time are lost with the process: counted, not silently gone.
    if (this.#pending.length > 0) this.#queue.drop(this.name, this.#pending.length);
    this.#pending = [];
    this.#sizes = [];
    await this.#file?.close().catch(() => undefined);
    this.#file = undefined;
  }
}
