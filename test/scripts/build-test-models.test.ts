import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { TEST_MODELS, ensureTestModels } from '../../scripts/build-test-models.js';
import { createGraph, floatAttr, onnx, writeModels } from '../../scripts/onnx/index.js';

const dir = mkdtempSync(join(tmpdir(), 'trb-models-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('builds every test model once, then skips them while the stamp is unchanged', () => {
  const first = ensureTestModels({ outDir: dir });
  assert.deepEqual(first.written.sort(), TEST_MODELS.map((m) => m.file).sort());
  const second = ensureTestModels({ outDir: dir });
  assert.equal(second.written.length, 0);
  assert.equal(second.skipped.length, TEST_MODELS.length);
});

test('a changed stamp rebuilds; a deleted stamp rebuilds only that model', () => {
  const specs = [{ file: 'a.onnx', build: () => new Uint8Array([1]) }, { file: 'b.onnx', build: () => new Uint8Array([2]) }];
  assert.equal(writeModels(dir, specs, 'v1').written.length, 2);
  assert.equal(writeModels(dir, specs, 'v1').written.length, 0);
  assert.deepEqual(writeModels(dir, specs, 'v2').written, ['a.onnx', 'b.onnx']);
  rmSync(join(dir, '.stamps', 'b.onnx'));
  assert.deepEqual(writeModels(dir, specs, 'v2').written, ['b.onnx']);
});

test('every generated model loads in onnxruntime with the declared signature', async () => {
  ensureTestModels({ outDir: dir });
  for (const m of TEST_MODELS) {
    const s = await ort.InferenceSession.create(join(dir, m.file));
    assert.ok(s.inputNames.length > 0 && s.outputNames.length > 0, m.file);
    await s.release();
  }
  const s = await ort.InferenceSession.create(join(dir, 'identity_fp32.onnx'));
  assert.deepEqual(s.inputMetadata[0], { name: 'INPUT0', isTensor: true, type: 'float32', shape: ['batch', 16] });
  await s.release();
  assert.ok(statSync(join(dir, 'mlp.onnx')).size > 64 * 256 * 4, 'mlp weights are stored');
});

test('the builder encodes attributes, initializers and symbolic dims that ORT reads back', async () => {
  const bytes = createGraph('g')
    .input('x', 'FP32', ['n', 2]).initializer('k', 'FP32', [2], [10, 20])
    .node('Mul', ['x', 'k'], ['m']).node('LeakyRelu', ['m'], ['y'], { alpha: floatAttr(0.5) })
    .output('y', 'FP32', ['n', 2]).encode();
  const decoded = onnx.ModelProto.decode(bytes);
  assert.equal(decoded.graph!.node![1]!.attribute![0]!.f, 0.5);
  assert.equal(Number(decoded.opsetImport[0]!.version), 17);
  writeFileSync(join(dir, 'g.onnx'), bytes);
  const s = await ort.InferenceSession.create(readFileSync(join(dir, 'g.onnx')));
  const r = await s.run({ x: new ort.Tensor('float32', Float32Array.from([1, -1, -2, 3]), [2, 2]) });
  assert.deepEqual([...(r.y!.data as Float32Array)], [10, -10, -10, 60]);
  await s.release();
});
