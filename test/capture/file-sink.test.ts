/**
 * The local sink on a real directory: private (0700, files 0600), rotating at file-bytes and keeping
 * at most `files` of its files, and refusing a directory it cannot make private.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CaptureQueue } from '../../src/capture/capture-queue.js';
import { openFileSink, prepareCaptureDir } from '../../src/capture/file-sink.js';
import { parseCaptureConfig, readCaptureDir } from '../../src/capture/index.js';
import { Errors } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';

const base = mkdtempSync(join(tmpdir(), 'trb-capture-files-'));
after(() => rmSync(base, { recursive: true, force: true }));

const line = (i: number) => JSON.stringify({ capture: `c${i}`, request_id: `r${i}`, record: 0, kind: 'request', model: 'm', time: new Date(0).toISOString(), start_ms: 0, duration_ms: 1, sampled: true, inputs: [], pad: 'x'.repeat(900) });

test('records go to 0600 files in a 0700 directory, a new file past file-bytes, at most `files` kept', async () => {
  const dir = join(base, 'a', 'captures');
  const settings = parseCaptureConfig([`dir=${dir}`, 'file-bytes=4096', 'files=2'])!;
  const queue = new CaptureQueue({ records: 100, bytes: 1e6 }, () => undefined);
  const sink = await openFileSink(dir, settings, queue, createLogger('capture'));
  for (let i = 0; i < 30; i++) sink.write([], [line(i)]);
  await sink.close();
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const files = readdirSync(dir).sort();
  assert.equal(files.length, 2, files.join(' '));
  for (const f of files) {
    assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600);
    assert.ok(statSync(join(dir, f)).size <= 4096 + 1000, 'a file ends at the line that reaches file-bytes');
    assert.match(f, new RegExp(`^capture-\\d{8}T\\d{9}Z-${process.pid}-\\d+\\.jsonl$`));
  }
  assert.equal(queue.counts.written.dir, 30);
  // The newest records survive rotation, oldest first, each a whole line.
  const { records, unreadable } = await readCaptureDir(dir);
  assert.equal(unreadable, 0);
  assert.equal(records.at(-1)!.request_id, 'r29');
  assert.ok(records.length >= 4 && records.length < 30);
  const ids = records.map((r) => Number(r.request_id.slice(1)));
  assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
});

test('lines past queue-bytes wait nowhere: dropped and counted', async () => {
  const dir = join(base, 'b');
  const settings = parseCaptureConfig([`dir=${dir}`, 'queue-bytes=2500'])!;
  const queue = new CaptureQueue({ records: 100, bytes: 1e6 }, () => undefined);
  const sink = await openFileSink(dir, settings, queue, createLogger('capture'));
  sink.write([], [line(1), line(2), line(3)]);
  await sink.close();
  assert.equal(queue.counts.dropped.dir, 1);
  assert.equal(queue.counts.written.dir, 2);
});

test('an existing directory of ours is narrowed to 0700; a file, or one that cannot be created, is refused', () => {
  const open = join(base, 'open');
  mkdirSync(open, { mode: 0o755 });
  chmodSync(open, 0o755);
  prepareCaptureDir(open);
  assert.equal(statSync(open).mode & 0o777, 0o700);
  const file = join(base, 'file');
  writeFileSync(file, 'x');
  assert.throws(() => prepareCaptureDir(file), (e: unknown) => Errors.captureDirUnusable.is(e) && /not a directory/.test((e as Error).message));
  assert.throws(() => prepareCaptureDir(join(file, 'below')), (e: unknown) => Errors.captureDirUnusable.is(e) && /cannot create/.test((e as Error).message));
  assert.equal(readFileSync(file, 'utf8'), 'x');
});

test('a partial last line (a server killed mid-write) is skipped and counted by the reader', async () => {
  const dir = join(base, 'partial');
  mkdirSync(dir);
  writeFileSync(join(dir, 'capture-1.jsonl'), `${line(1)}\n${line(2).slice(0, 40)}`);
  writeFileSync(join(dir, 'notes.txt'), 'not a capture file');
  const r = await readCaptureDir(dir);
  assert.equal(r.records.length, 1);
  assert.equal(r.unreadable, 1);
});
