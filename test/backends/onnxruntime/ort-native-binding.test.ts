/**
 * onnxruntime-node's native binding is internal to the package; the server calls it directly for
 * inline models (backends/onnxruntime/direct-runner.ts). These tests fail as soon as an upgrade
 * changes it, instead of the server quietly falling back to the slower public API: the binding
 * must check out on the installed version, and a direct run must answer exactly as the public
 * API does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as ort from 'onnxruntime-node';
import { nativeBinding } from '../../../backends/onnxruntime/ort-native-binding.js';
import { createDirectRunner } from '../../../backends/onnxruntime/direct-runner.js';
import { createInlineRunner } from '../../../backends/onnxruntime/session-runner.js';
import type { PlainTensor } from '../../../backends/onnxruntime/ort-tensor.js';

/** The bytes under a typed array: FP16 comes back as a Float16Array where Node has one (24), as its words elsewhere. */
const bytes = (d: PlainTensor['data']) => {
  const v = d as ArrayBufferView;
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
};
const MODELS = new URL('../../../build/models/', import.meta.url).pathname;
const installed = (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'), 'utf8')) as { version: string }).version;

test(`the native binding of the installed onnxruntime-node (${installed}) is as direct-runner.ts expects`, () => {
  const b = nativeBinding();
  assert.equal(b.version, installed);
  assert.ok(b.ok, `onnxruntime-node ${installed} changed its native binding: ${b.ok ? '' : b.reason}. ` +
    'Adapt backends/onnxruntime/ort-native-binding.ts to it, or remove the direct runner (the public API then serves every inline model).');
});

test('a direct run answers exactly as the public API does (FP32, INT64, FP16, BOOL identities)', async () => {
  // Each identity takes [batch, 16]; two rows of varied values, the edges of each type included.
  const row = (f: (i: number) => number) => Array.from({ length: 32 }, (_, i) => f(i));
  const cases: [string, PlainTensor][] = [
    ['identity_fp32', { name: 'INPUT0', type: 'float32', dims: [2, 16], data: new Float32Array(row((i) => (i - 16) * 1.5 + (i === 3 ? 1e-7 : 0) + (i === 31 ? 3e38 : 0))) }],
    ['identity_int64', { name: 'INPUT0', type: 'int64', dims: [2, 16], data: new BigInt64Array(row((i) => i - 16).map((v, i) => (i === 5 ? 2n ** 62n : BigInt(v)))) }],
    ['identity_fp16', { name: 'INPUT0', type: 'float16', dims: [2, 16], data: new Uint16Array(row((i) => (i % 2 ? 0x3c00 : 0xc000) + i)) }],
    ['identity_bool', { name: 'INPUT0', type: 'bool', dims: [2, 16], data: new Uint8Array(row((i) => i % 3 === 0 ? 1 : 0)) }],
  ];
  for (const [model, feed] of cases) {
    const file = `${MODELS}${model}.onnx`;
    const direct = createDirectRunner(file, {});
    assert.ok('run' in direct, `${model}: ${'unavailable' in direct ? direct.unavailable : ''}`);
    const session = await ort.InferenceSession.create(file);
    const fetches = [...session.outputNames];
    const inputName = session.inputNames[0]!;
    const feeds = [{ ...feed, name: inputName }];
    const publicApi = createInlineRunner(session);
    try {
      const [a, b] = [await direct.run(feeds, fetches, false), await publicApi.run(feeds, fetches, false)];
      assert.equal(a.length, b.length, model);
      for (let k = 0; k < a.length; k++) {
        assert.equal(a[k]!.name, b[k]!.name);
        assert.equal(a[k]!.type, b[k]!.type, `${model}: output type`);
        assert.deepEqual([...a[k]!.dims], [...b[k]!.dims], `${model}: output dims`);
        assert.deepEqual(bytes(a[k]!.data), bytes(b[k]!.data), `${model}: output data`);
        assert.deepEqual(bytes(a[k]!.data), bytes(feed.data), `${model}: identity`);
      }
    } finally {
      await direct.close();
      await publicApi.close();
    }
  }
});

test('a model file the native session cannot load is a reason, not a throw', () => {
  const r = createDirectRunner(`${MODELS}does-not-exist.onnx`, {});
  assert.ok('unavailable' in r);
  assert.match(r.unavailable, new RegExp(`onnxruntime-node ${installed.replace(/\./g, '\\.')}: its native session did not load the model`));
});
