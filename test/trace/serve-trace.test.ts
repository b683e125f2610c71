/** `tributary serve` with tritonserver's trace flags: the settings they set, and the file written at stop. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LOOPBACK, ROOT, startServe } from '../helpers/tributary-process.js';

test('--trace-config sets the settings the API shows, and the trace file is complete after SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-serve-trace-'));
  const file = join(dir, 'trace.json');
  const s = await startServe([...LOOPBACK, '--model-repository', join(ROOT, 'test/fixtures/pipelines/repo'), '--allow-metrics=false',
    '--trace-config', `triton,file=${file}`, '--trace-config', 'level=TIMESTAMPS', '--trace-config', 'rate=1', '--trace-config', 'count=1']);
  try {
    const base = `http://127.0.0.1:${s.http}`;
    const settings = await (await fetch(`${base}/v2/trace/setting`)).json() as Record<string, unknown>;
    assert.deepEqual([settings.trace_file, settings.trace_level, settings.trace_rate, settings.trace_count], [file, ['TIMESTAMPS'], '1', '1']);
    assert.ok(((await (await fetch(`${base}/v2`)).json()) as { extensions: string[] }).extensions.includes('trace'));
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${base}/v2/models/ident/infer`, { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }] }) });
      assert.equal(res.status, 200, await res.text());
    }
  } finally {
    assert.equal(await s.stop(), 0, s.log());
  }
  const records = JSON.parse(readFileSync(file, 'utf8')) as { id: number; model_name?: string; timestamps?: unknown[] }[];
  assert.deepEqual(records.map((r) => r.model_name ?? r.timestamps?.length), ['ident', 7], 'count=1: the first request only');
  rmSync(dir, { recursive: true, force: true });
});
