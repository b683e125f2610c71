/**
 * With data capture on, an experiment's request records its variant's call and its mirror's copy
 * side by side under the request, each with its answer, so the shadow's answers can be compared
 * with the ones the clients got (`tributary inspect`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import { createCapture, parseCaptureConfig, tensorOfRecord } from '../../src/capture/index.js';
import { createDataPlane } from '../../src/dataplane/index.js';
import { createServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { memorySink } from '../capture/memory-sink.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { experimentRepoFiles } from './experiment-repo.js';

quietLog([]);

test("a captured request records the variant's answer and the mirror's, side by side", async (t) => {
  const repo = tempRepo(experimentRepoFiles());
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['greet'] });
  t.after(() => server.close());
  const sink = memorySink();
  const capture = await createCapture(parseCaptureConfig(['dir=/unused', 'rate=1'])!, { sinks: [sink], modelConfig: (m) => server.modelConfig(m) });
  t.after(() => capture.close());
  const edge = createDataPlane(server, { capture }).edge();
  const headers = { get: (h: string) => (h === 'x-user' ? 'alice' : undefined), entries: () => [] };
  const [answer] = await lastValueFrom(edge.infer({ model: 'greet', id: 'r-1', inputs: [createTensor('X', 'FP32', [1, 1], [7])] }, headers).responses.pipe(toArray()));
  // Each record is written when its own call ends: the mirror's copy may end, and be written,
  // before the request's and the variant's records are (seen on a loaded machine), so wait for all three.
  const end = Date.now() + 15_000;
  const written = () => ['request', 'variant', 'mirror'].every((k) => sink.records().some((r) => r.kind === k));
  while (!written() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  // Grouped as `tributary inspect` reads them (tensor data two records share is written once).
  const [request] = sink.requests();
  const records = request!.records;
  const root = records.find((r) => r.kind === 'request')!;
  const variant = records.find((r) => r.kind === 'variant')!;
  const mirror = records.find((r) => r.kind === 'mirror')!;
  assert.ok(root && variant && mirror, JSON.stringify(records.map((r) => r.kind)));
  assert.equal(root.request_id, 'r-1');
  assert.equal(variant.parent, root.record);
  assert.equal(mirror.parent, root.record);
  assert.equal(variant.capture, mirror.capture);
  assert.equal(variant.step, answer!.parameters?.experiment_variant);
  assert.equal(mirror.model, 'greet_shadow');
  const y = (r: typeof variant) => Number((tensorOfRecord(r.outputs![0]!)!.data as Float32Array)[0]);
  assert.equal(y(variant), 7 + (variant.model === 'greet_a' ? 1 : 2));
  assert.equal(y(mirror), 107, "the shadow's answer, which no client saw");
});
