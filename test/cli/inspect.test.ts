/**
 * `tributary inspect` over a real capture directory (written by the capture of a real server): the
 * list and its filters, one request's tree as text and JSON with tensors cut unless --full, and the
 * refusals.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { lastValueFrom } from 'rxjs';
import { createCapture, parseCaptureConfig } from '../../src/capture/index.js';
import { createDataPlane } from '../../src/dataplane/index.js';
import { createServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { main } from '../../src/cli/main.js';

quietLog([/'missing'/]);

const work = mkdtempSync(join(tmpdir(), 'trb-inspect-'));
const dir = join(work, 'captures');
const noHeaders = { get: () => undefined, entries: () => [] };

before(async () => {
  const fixtures = new URL('../fixtures/bls/', import.meta.url).pathname;
  for (const m of ['ident', 'caller']) cpSync(join(fixtures, m), join(work, 'repo', m), { recursive: true });
  const server = await createServer({ modelRepository: join(work, 'repo') });
  const capture = await createCapture(parseCaptureConfig([`dir=${dir}`])!);
  const edge = createDataPlane(server, { capture }).edge();
  const send = (model: string, id: string, x: number[], parameters?: Record<string, string>) =>
    lastValueFrom(edge.infer({ model, id, inputs: [createTensor(model === 'ident' ? 'IN' : 'X', 'FP32', model === 'ident' ? [1, x.length] : [x.length], x)], ...(parameters ? { parameters } : {}) }, noHeaders).responses).catch(() => undefined);
  await send('ident', 'plain', Array.from({ length: 20 }, (_, i) => i));
  await send('caller', 'calls', [1, 2]);
  await send('caller', 'broken', [1], { target: 'missing' });
  await capture.close();
  await server.close();
});
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * `tributary <args>` run in this process (a child process per command costs seconds here): its
 * text output is collected; node:test's own protocol (bytes on stdout) passes through.
 */
async function runTributary(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const grab = (stream: NodeJS.WriteStream, key: 'stdout' | 'stderr') => {
    const write = stream.write;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (typeof chunk !== 'string') return (write as (c: Uint8Array, ...r: unknown[]) => boolean).call(stream, chunk, ...rest);
      out[key] += chunk;
      return true;
    }) as typeof write;
    return () => { stream.write = write; };
  };
  const restore = [grab(process.stdout, 'stdout'), grab(process.stderr, 'stderr')];
  try {
    const code = await main(args);
    return { code, ...out };
  } finally {
    for (const r of restore) r();
  }
}

const inspect = async (...args: string[]) => runTributary(['inspect', dir, ...args]);
const ids = (stdout: string) => stdout.trim().split('\n').map((l) => l.split(/\s+/)[1]);

test('the list, and its filters: --failed, --model, --step, --since, --limit', async () => {
  const all = await inspect();
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(ids(all.stdout), ['plain', 'calls', 'broken']);
  assert.match(all.stdout, /broken\s+caller\s+\S+ ms\s+2 records\s+error {2}at missing \(missing\)/);
  assert.deepEqual(ids((await inspect('--failed')).stdout), ['broken']);
  assert.deepEqual(ids((await inspect('--model', 'ident')).stdout), ['plain', 'calls']);
  assert.deepEqual(ids((await inspect('--step', 'ident')).stdout), ['calls']);
  assert.match((await inspect('--since', '2999-01-01T00:00:00Z')).stdout, /no captured requests in .* match/);
  assert.deepEqual(ids((await inspect('--since', '1h')).stdout), ['plain', 'calls', 'broken']);
  const limited = await inspect('--limit', '1', '--format', 'json');
  assert.deepEqual((JSON.parse(limited.stdout) as { request_id: string; status: string }[]).map((r) => [r.request_id, r.status]), [['broken', 'error']]);
});

test('one request as a tree: tensors cut to 8 elements unless --full', async () => {
  const text = await inspect('--id', 'calls');
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^request calls {2}caller v1 /);
  assert.match(text.stdout, /└─ call ident v1 {2}\+\S+ ms {2}\S+ ms {2}ok\n {6}in {2}IN FP32 \[1,2\] 2, 3\n {6}out OUT FP32 \[1,2\] 2, 3/);
  const cut = JSON.parse((await inspect('--id', 'plain', '--format', 'json')).stdout) as { tree: { inputs: { data: number[]; elements: number; truncated: boolean }[] }[] }[];
  assert.deepEqual(cut[0]!.tree[0]!.inputs[0], { name: 'IN', datatype: 'FP32', shape: [1, 20], data: [0, 1, 2, 3, 4, 5, 6, 7], elements: 20, truncated: true });
  const full = JSON.parse((await inspect('--id', 'plain', '--format', 'json', '--full')).stdout) as { tree: { inputs: { data: number[] }[] }[] }[];
  assert.equal(full[0]!.tree[0]!.inputs[0]!.data.length, 20);
  const broken = await inspect('--id', 'broken');
  assert.match(broken.stdout, /failed at call 'missing' \(model 'missing'\): Request for unknown model: 'missing' is not found\n/);
});

test('refusals: an unknown id, no source, both sources, a bad --format or --since', async () => {
  const unknown = await inspect('--id', 'nope');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no captured request with id 'nope' in .*; 'tributary inspect .*' lists the captured requests/);
  assert.equal((await runTributary(['inspect'])).code, 2);
  assert.equal((await runTributary(['inspect', dir, '--redis', '127.0.0.1:6379'])).code, 2);
  assert.equal((await inspect('--format', 'yaml')).code, 2);
  assert.equal((await inspect('--since', 'yesterday')).code, 2);
  const missing = await runTributary(['inspect', join(work, 'nothing-here')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read captured requests from .*nothing-here: ENOENT/);
});
