import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOnnxRuntimeBackend } from '../../../backends/onnxruntime/index.js';
import { fromPlain, toOrtTensor, toPlain } from '../../../backends/onnxruntime/ort-tensor.js';
import { IDENTITY_DATATYPES, identityModelFile, testModelPath } from '../../../scripts/build-test-models.js';
import { createTensor, tensorStrings, toConfigType, type DataType, type Tensor } from '../../../src/tensor/index.js';
import type { ConfigDataType } from '../../../src/config/index.js';
import { Errors } from '../../../src/errors.js';
import { io, loadInstance, modelConfig, outputsOf, params, testRequest } from './harness.js';

/** Two rows of 16 values per datatype, including each type's extremes. */
function sample(dt: DataType): Tensor {
  const n = 32;
  const pick = <T>(edges: T[], f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => (i < edges.length ? edges[i]! : f(i)));
  switch (dt) {
    case 'BOOL': return createTensor('INPUT0', dt, [2, 16], pick([true, false], (i) => i % 3 === 0));
    case 'UINT8': return createTensor('INPUT0', dt, [2, 16], pick([0, 255], (i) => i * 7));
    case 'INT8': return createTensor('INPUT0', dt, [2, 16], pick([-128, 127], (i) => i - 16));
    case 'UINT16': return createTensor('INPUT0', dt, [2, 16], pick([0, 65535], (i) => i * 999));
    case 'INT16': return createTensor('INPUT0', dt, [2, 16], pick([-32768, 32767], (i) => -i * 501));
    case 'UINT32': return createTensor('INPUT0', dt, [2, 16], pick([0, 4294967295], (i) => i * 123456789));
    case 'INT32': return createTensor('INPUT0', dt, [2, 16], pick([-2147483648, 2147483647], (i) => -i * 12345));
    case 'UINT64': return createTensor('INPUT0', dt, [2, 16], pick([0n, 2n ** 64n - 1n], (i) => BigInt(i) * 10n ** 15n));
    case 'INT64': return createTensor('INPUT0', dt, [2, 16], pick([-(2n ** 63n), 2n ** 63n - 1n], (i) => -BigInt(i) * 10n ** 15n));
    // Raw half-precision words: 1.0, the largest finite value, a NaN, -0.
    case 'FP16': return createTensor('INPUT0', dt, [2, 16], pick([0x3c00, 0x7bff, 0x7e00, 0x8000], (i) => 0x3c00 + i));
    case 'FP32': return createTensor('INPUT0', dt, [2, 16], pick([3.4028234663852886e38, -1.401298464324817e-45, Infinity], (i) => i / 3));
    case 'FP64': return createTensor('INPUT0', dt, [2, 16], pick([Number.MAX_VALUE, Number.MIN_VALUE, -Infinity], (i) => i / 7));
    case 'BYTES': return createTensor('INPUT0', dt, [2, 16], pick(['', 'héllo wörld', '日本語', '🙂 emoji'], (i) => `item-${i}`));
    default: throw new Error(`no sample for ${dt}`);
  }
}

function values(t: Tensor): unknown[] {
  return t.datatype === 'BYTES' ? tensorStrings(t) : Array.from(t.data as ArrayLike<unknown>);
}

test('toPlain keeps numeric data as the same view (no copy), FP16 as raw words', () => {
  for (const dt of ['FP16', 'INT64', 'BOOL', 'FP32'] as const) {
    const t = sample(dt);
    const p = toPlain(t);
    assert.equal(p.data, t.data, dt);
    const back = fromPlain(p);
    assert.equal(back.data, t.data, dt);
  }
  const fp16 = toOrtTensor(sample('FP16'));
  assert.equal(fp16.type, 'float16');
  assert.ok(fp16.data instanceof Uint16Array);
  assert.equal(toOrtTensor(sample('BOOL')).type, 'bool');
  assert.deepEqual(toOrtTensor(sample('BYTES')).data.slice(0, 3), ['', 'héllo wörld', '日本語']);
});

test('a BYTES element with a NUL byte is refused (ORT would truncate it)', () => {
  assert.throws(() => toPlain(createTensor('s', 'BYTES', [2], ['ok', 'a\u0000b'])), { code: Errors.ortStringNul.code });
});

test('BF16 has no onnxruntime-node tensor type: a clear unsupported error', () => {
  assert.throws(() => toPlain(createTensor('x', 'BF16', [1], [0])), { code: Errors.ortDatatypeUnsupported.code });
});

for (const target of ['inline', 'worker'] as const) {
  test(`every datatype round-trips through an ORT Identity model (${target})`, async () => {
    const types = target === 'inline' ? IDENTITY_DATATYPES : (['BOOL', 'UINT64', 'FP16', 'BYTES'] as const);
    for (const dt of types) {
      const ct = toConfigType(dt) as ConfigDataType;
      const cfg = modelConfig({
        name: `identity_${dt}`, max_batch_size: 8, input: [io('INPUT0', ct, [16])], output: [io('OUTPUT0', ct, [16])],
        parameters: params({ execution_target: target }),
      });
      const { instance, close } = await loadInstance(createOnnxRuntimeBackend(), cfg, testModelPath(identityModelFile(dt)));
      const input = sample(dt);
      // Two requests, so the batch path (concat + split) is exercised for every type too.
      const first = testRequest(cfg.name, [input]);
      const second = testRequest(cfg.name, [createTensor('INPUT0', dt, [1, 16], dt === 'BYTES' ? tensorStrings(input).slice(0, 16) : values(input).slice(0, 16) as number[])]);
      await instance.execute([first.req, second.req]);
      const out = (await outputsOf(first)).OUTPUT0!;
      assert.equal(out.datatype, dt);
      assert.deepEqual(out.shape, [2, 16]);
      assert.deepEqual(values(out), values(input), dt);
      assert.deepEqual(values((await outputsOf(second)).OUTPUT0!), values(input).slice(0, 16), dt);
      await close();
    }
  });
}
