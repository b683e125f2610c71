/**
 * The Redis Streams sink: each record `XADD`ed to one stream (`redis-stream`, default
 * tributary:capture) with an approximate length cap (`MAXLEN ~ redis-maxlen`), so every replica and
 * every machine writes one stream that `inspect` and `replay` read. Through ioredis, as the Redis
 * response cache: commands fail at once while Redis is unreachable (no offline queue), and those
 * records are dropped and counted; the client reconnects on its own. At most `queue` records are
 * in flight to Redis.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { CaptureQueue } from './capture-queue.js';
import type { CaptureSettings } from './capture-settings.js';
import type { CapturedRecord } from './captured-record.js';
import type { CaptureSink } from './create-capture.js';

/** The stream entry's field that holds the record's JSON line. */
export const RECORD_FIELD = 'record';

/** How long start-up waits for Redis before serving on (records are dropped until it answers). */
const CONNECT_WAIT_MS = 2000;
const CLOSE_WAIT_MS = 5000;

export function redisClient(host: string, port: number): Redis {
  return new Redis({
    host, port, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_WAIT_MS,
    // Reconnect forever with a bounded back-off: Redis may come back at any time.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
}

export class RedisSink implements CaptureSink {
  readonly name = 'redis';
  readonly #client: Redis;
  readonly #s: CaptureSettings;
  readonly #queue: CaptureQueue;
  readonly #log: Logger;
  readonly #where: string;
  #inFlight = 0;
  #failing = false;
  readonly #pending = new Set<Promise<void>>();

  static async open(s: CaptureSettings, queue: CaptureQueue, log: Logger): Promise<RedisSink> {
    const client = redisClient(s.redis!.host, s.redis!.port);
    const sink = new RedisSink(client, s, queue, log);
    try {
      await client.connect();
    } catch (e) {
      log.warn(`capture: Redis at ${sink.#where} is not reachable (${(e as Error).message}); records for it are dropped until it is`);
      sink.#failing = true;
    }
    return sink;
  }

  private constructor(client: Redis, s: CaptureSettings, queue: CaptureQueue, log: Logger) {
    this.#client = client;
    this.#s = s;
    this.#queue = queue;
    this.#log = log;
    this.#where = `${s.redis!.host}:${s.redis!.port}`;
    client.on('error', () => undefined); // each failed command is counted; the outage is logged once
  }

  write(_records: readonly CapturedRecord[], lines: readonly string[]): void {
    const room = Math.max(0, this.#s.queueRecords - this.#inFlight);
    const take = lines.length <= room ? lines : lines.slice(0, room);
    if (take.length < lines.length) this.#queue.drop(this.name, lines.length - take.length);
    if (take.length === 0) return;
    const p = this.#client.pipeline();
    for (const l of take) p.xadd(this.#s.redisStream, 'MAXLEN', '~', this.#s.redisMaxLen, '*', RECORD_FIELD, l);
    this.#inFlight += take.length;
    const done = p.exec().then((results) => {
      let ok = 0;
      let why = '';
      for (const [err] of results ?? []) {
        if (err) why = err.message;
        else ok++;
      }
      this.#settle(ok, take.length - ok, why);
    }, (e: Error) => this.#settle(0, take.length, e.message)).finally(() => {
      this.#inFlight -= take.length;
      this.#pending.delete(done);
    });
    this.#pending.add(done);
  }

  #settle(ok: number, failed: number, why: string): void {
    if (ok) this.#queue.wrote(this.name, ok);
    if (failed) {
      this.#queue.drop(this.name, failed);
      if (!this.#failing) this.#log.warn(`capture: Redis at ${this.#where} refused records (${why}); they are dropped until it takes them`);
      this.#failing = true;
    } else if (this.#failing) {
      this.#log.info(`capture: Redis at ${this.#where} takes records again`);
      this.#failing = false;
    }
  }

  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.#pending), new Promise((r) => { timer = setTimeout(r, CLOSE_WAIT_MS); })]);
    clearTimeout(timer);
    this.#client.disconnect();
  }
}
