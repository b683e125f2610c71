/**
 * trace_count as Triton reports it: the traces still to take, counting down as requests are
 * sampled, globally and per model; re-applied settings keep the count, a new trace_count starts
 * it over. And the response cache in triton mode: CACHE_MISS / CACHE_HIT timestamps in the file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { lastValueFrom } from 'rxjs';
import { createDataPlane, type DataPlane } from '../../src/dataplane/index.js';
import { createLogger } from '../../src/logger.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { Tracer } from '../../src/trace/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const io = 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n';

quietLog([]);

let repo: TempRepo;
let dir: string;

before(() => {
  repo = tempRepo({
    'plain/config.pbtxt': `name: "plain"\nbackend: "identity"\nmax_batch_size: 0\n${io}`, 'plain/1/model.identity': '',
    'other/config.pbtxt': `name: "other"\nbackend: "identity"\nmax_batch_size: 0\n${io}`, 'other/1/model.identity': '',
    'cached/config.pbtxt': `name: "cached"\nbackend: "identity"\nmax_batch_size: 0\n${io}response_cache { enable: true }\n`, 'cached/1/model.identity': '',
  });
  dir = mkdtempSync(join(tmpdir(), 'tributary-trace-count-'));
});

after(() => {
  repo?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function traced(name: string, settings: Record<string, string | string[]>): Promise<{ server: LocalServer; plane: DataPlane; file: string }> {
  const file = join(dir, `${name}.json`);
  const tracer = new Tracer(createLogger('trace'));
  const server = await createServer({ modelRepository: repo.dir, tracer, responseCache: { kind: 'local', size: 1 << 20 } });
  const plane = createDataPlane(server, { tracer, traceSettings: { trace_file: file, trace_level: ['TIMESTAMPS'], trace_rate: '1', ...settings } });
  return { server, plane, file };
}

const infer = (server: LocalServer, model: string) => lastValueFrom(server.infer({ model, inputs: [createTensor('X', 'FP32', [4], [1, 2, 3, 4])] }));
const count = (plane: DataPlane, model?: string) => plane.traceSettings(model ? { model } : {}).trace_count;

test('the global trace_count counts down to 0 as requests are traced, and a new value starts over', async () => {
  const { server, plane, file } = await traced('global', { trace_count: '2' });
  try {
    assert.equal(count(plane), '2');
    await infer(server, 'plain');
    assert.equal(count(plane), '1');
    assert.equal(count(plane, 'plain'), '1', 'a model without settings of its own shows the global count');
    // Another setting changed: the count goes on from where it was.
    assert.equal(plane.traceSettings({}, { log_frequency: '0' }).trace_count, '1');
    await infer(server, 'other');
    await infer(server, 'plain');
    assert.equal(count(plane), '0', 'the third request is not traced');
    assert.equal(plane.traceSettings({}, { trace_count: '1' }).trace_count, '1');
    await infer(server, 'plain');
    assert.equal(count(plane), '0');
  } finally {
    await server.close();
  }
  const headers = (JSON.parse(readFileSync(file, 'utf8')) as { model_name?: string }[]).filter((o) => o.model_name);
  assert.deepEqual(headers.map((h) => h.model_name), ['plain', 'other', 'plain']);
});

test('a model\'s own trace_count counts its own traces; unlimited stays -1', async () => {
  const { server, plane } = await traced('model', {});
  try {
    assert.equal(count(plane), '-1');
    assert.equal(plane.traceSettings({ model: 'plain' }, { trace_count: '2' }).trace_count, '2');
    await infer(server, 'plain');
    await infer(server, 'other');
    assert.equal(count(plane, 'plain'), '1');
    assert.equal(count(plane, 'other'), '-1');
    assert.equal(count(plane), '-1');
    // Clearing the model's count falls back to the global setting.
    assert.equal(plane.traceSettings({ model: 'plain' }, { trace_count: null }).trace_count, '-1');
  } finally {
    await server.close();
  }
});

test('triton mode: a cache miss and a cache hit are timestamps of the request\'s trace', async () => {
  const { server, file } = await traced('cache', {});
  try {
    await infer(server, 'cached');
    await infer(server, 'cached');
  } finally {
    await server.close();
  }
  const stamps = (JSON.parse(readFileSync(file, 'utf8')) as { timestamps?: { name: string; ns: number }[] }[])
    .filter((o) => o.timestamps).map((o) => o.timestamps!.map((t) => t.name));
  // A trace is written when it ends: the miss's after its batch ends, which may come after the hit.
  assert.deepEqual(stamps.sort((a, b) => b.length - a.length), [
    ['REQUEST_START', 'CACHE_MISS', 'QUEUE_START', 'COMPUTE_START', 'COMPUTE_INPUT_END', 'COMPUTE_OUTPUT_START', 'COMPUTE_END', 'REQUEST_END'],
    ['REQUEST_START', 'CACHE_HIT', 'REQUEST_END'],
  ]);
});
