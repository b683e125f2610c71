/**
 * Reading records back, for `tributary inspect` and `replay`: every capture file of a directory
 * (oldest first, each name confined to the directory), or a Redis stream read in pages. A line that
 * is not a record (the unfinished last line of a server that was killed) is counted and skipped.
 */
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Errors } from '../errors.js';
import type { Parameters } from '../inference/index.js';
import { confinePath } from '../paths/index.js';
import { parseJsonExact } from '../protocol/index.js';
import type { RecordTensor } from './record-tensor.js';
import { RECORD_FIELD, redisClient } from './redis-sink.js';

/** One record as written (captured-record.ts, `recordJson`). */
export interface RecordLine {
  capture: string;
  request_id: string;
  record: number;
  parent?: number;
  kind: string;
  step?: string;
  model: string;
  version?: string;
  time: string;
  start_ms: number;
  duration_ms: number;
  sampled: boolean;
  parameters?: Parameters;
  requested_outputs?: string[];
  inputs: RecordTensor[];
  outputs?: RecordTensor[];
  responses?: RecordTensor[][];
  responses_dropped?: number;
  error?: string;
  error_code?: string;
  cancelled?: boolean;
}

export interface ReadResult {
  records: RecordLine[];
  /** Lines that were not records. */
  unreadable: number;
}

/** Entries read from Redis per XRANGE. */
const PAGE = 1000;

const FILE = /^capture-.*\.jsonl$/;

function parseLine(line: string): RecordLine | undefined {
  if (line.trim() === '') return undefined;
  try {
    const r = parseJsonExact(line) as RecordLine;
    return r && typeof r.capture === 'string' && typeof r.record === 'number' && Array.isArray(r.inputs) ? r : undefined;
  } catch {
    return undefined;
  }
}

export async function readCaptureDir(dir: string): Promise<ReadResult> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => FILE.test(n)).sort();
  } catch (e) {
    throw Errors.captureSourceUnreadable(dir, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
  }
  const out: ReadResult = { records: [], unreadable: 0 };
  for (const name of names) {
    const path = await confinePath(dir, name, 'capture file', { inside: 'the capture directory', noFinalSymlink: true });
    const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        if (line.trim() === '') continue;
        const r = parseLine(line);
        if (r) out.records.push(r);
        else out.unreadable++;
      }
    } catch (e) {
      throw Errors.captureSourceUnreadable(`${dir}/${name}`, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
    }
  }
  return out;
}

/** Every entry of the stream, oldest first. */
export async function readCaptureStream(host: string, port: number, stream: string): Promise<ReadResult> {
  const where = `redis ${host}:${port} stream ${stream}`;
  const client = redisClient(host, port);
  client.on('error', () => undefined);
  const out: ReadResult = { records: [], unreadable: 0 };
  try {
    await client.connect();
    let start = '-';
    for (;;) {
      const page = await client.xrange(stream, start, '+', 'COUNT', PAGE);
      for (const [, fields] of page) {
        const i = fields.indexOf(RECORD_FIELD);
        const r = i >= 0 && i % 2 === 0 ? parseLine(fields[i + 1] ?? '') : undefined;
        if (r) out.records.push(r);
        else out.unreadable++;
      }
      if (page.length < PAGE) break;
      start = `(${page[page.length - 1]![0]}`;
    }
  } catch (e) {
    throw Errors.captureSourceUnreadable(where, (e as Error).message);
  } finally {
    client.disconnect();
  }
  return out;
}
