/**
 * Repository scanning end to end: real servers over throw-away repositories of real ONNX models
 * (onnxruntime), covering several repositories, versions and version_policy, auto-complete,
 * strict config, config/graph disagreement, labels and warmup.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestRecord } from '../../src/model/index.js';
import { createServer, inferOnce, type Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { expectError } from '../helpers/expect-error.js';
import { int32s, simpleConfig } from '../helpers/model-configs.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { withServer } from '../helpers/with-server.js';
import { ADD_CONST_CONFIG, addConstModel } from './add-const-model.js';
import { quietLog } from '../helpers/quiet-log.js';

// Each of these models is broken on purpose; the assertions are on the reasons the index reports.
quietLog([/load failed for model '(empty|bare|dims|simple)'/]);

const x4 = (rows: number, f: (i: number) => number) => createTensor('x', 'FP32', [rows, 4], Float32Array.from({ length: rows * 4 }, (_, i) => f(i)));

async function addK(server: Server, model: string, version?: string): Promise<{ version: string; k: number }> {
  const input = x4(2, (i) => i * 0.5);
  const res = await inferOnce(server, { model, ...(version ? { version } : {}), inputs: [input] });
  const y = res.outputs[0]!.data as Float32Array;
  const ks = [...y].map((v, i) => v - (input.data as Float32Array)[i]!);
  assert.ok(ks.every((k) => k === ks[0]), `one constant per model: ${ks}`);
  return { version: res.version, k: ks[0]! };
}

test('several repositories serve together; each model infers from its own repository', async () => {
  const a = tempRepo({ 'simple/config.pbtxt': simpleConfig() });
  a.onnx('simple', 'simple.onnx');
  const b = tempRepo();
  b.onnx('ident', 'identity_fp32.onnx'); // no config: auto-completed
  b.file('plus/config.pbtxt', ADD_CONST_CONFIG('plus'));
  b.file('plus/1/model.onnx', addConstModel(7));
  try {
    await withServer({ modelRepository: [a.dir, b.dir] }, async (server) => {
      assert.equal(server.isReady(), true);
      const index = await server.repositoryIndex();
      assert.deepEqual(index.map((m) => [m.name, m.state]), [['ident', 'READY'], ['plus', 'READY'], ['simple', 'READY']]);
      const r = await inferOnce(server, {
        model: 'simple',
        inputs: [createTensor('INPUT0', 'INT32', [1, 16], int32s(16, (i) => i)), createTensor('INPUT1', 'INT32', [1, 16], int32s(16, () => 3))],
      });
      assert.deepEqual([...(r.outputs.find((t) => t.name === 'OUTPUT0')!.data as Int32Array)], [...int32s(16, (i) => i + 3)]);
      const v = Float32Array.from({ length: 16 }, (_, i) => i / 3);
      const id = await inferOnce(server, { model: 'ident', inputs: [createTensor('INPUT0', 'FP32', [1, 16], v)] });
      assert.deepEqual([...(id.outputs[0]!.data as Float32Array)], [...v]);
      assert.equal((await addK(server, 'plus')).k, 7);
    });
  } finally {
    a.remove();
    b.remove();
  }
});

test('the same model name in two repositories is a clear error naming both directories', async () => {
  const a = tempRepo({ 'simple/config.pbtxt': simpleConfig() });
  a.onnx('simple', 'simple.onnx');
  const b = tempRepo({ 'simple/config.pbtxt': simpleConfig() });
  b.onnx('simple', 'simple.onnx');
  try {
    const e = await expectError(createServer({ modelRepository: [a.dir, b.dir] }));
    assert.match(e.message, /model 'simple' appears in more than one repository/);
    assert.ok(e.message.includes(a.dir) && e.message.includes(b.dir), e.message);
  } finally {
    a.remove();
    b.remove();
  }
});

test('a repository path that does not exist is a clear error', async () => {
  const e = await expectError(createServer({ modelRepository: '/nonexistent/tributary-repo' }));
  assert.equal(e.kind, 'NOT_FOUND');
  assert.match(e.message, /model repository '\/nonexistent\/tributary-repo' does not exist/);
});

function versionedRepo(policy: string): TempRepo {
  const repo = tempRepo({ 'addk/config.pbtxt': ADD_CONST_CONFIG('addk', policy) });
  for (const v of [1, 2, 3]) repo.file(`addk/${v}/model.onnx`, addConstModel(v * 10));
  repo.file('addk/notaversion/model.onnx', addConstModel(99)); // non-numeric folders are ignored
  return repo;
}

test('version_policy: default serves only the highest version', async () => {
  const repo = versionedRepo('');
  try {
    await withServer({ modelRepository: repo.dir }, async (server) => {
      assert.deepEqual(await addK(server, 'addk'), { version: '3', k: 30 });
      assert.deepEqual(server.modelMetadata('addk').versions, ['3']);
      const e = await expectError(inferOnce(server, { model: 'addk', version: '1', inputs: [x4(1, () => 0)] }));
      assert.equal(e.kind, 'NOT_FOUND');
      assert.match(e.message, /'addk' version 1/);
      assert.equal(server.modelReady('addk', '1'), false);
      assert.equal(server.modelReady('addk', '3'), true);
    });
  } finally {
    repo.remove();
  }
});

test('version_policy: latest 2, all and specific; a version can be asked for; default is the highest', async () => {
  const cases: Array<[string, string[], string]> = [
    ['version_policy: { latest: { num_versions: 2 } }', ['2', '3'], '3'],
    ['version_policy: { all: {} }', ['1', '2', '3'], '3'],
    ['version_policy: { specific: { versions: [ 1, 2 ] } }', ['1', '2'], '2'],
  ];
  for (const [policy, served, highest] of cases) {
    const repo = versionedRepo(policy);
    try {
      await withServer({ modelRepository: repo.dir }, async (server) => {
        assert.deepEqual(server.modelMetadata('addk').versions, served, policy);
        const index = (await server.repositoryIndex()).filter((m) => m.name === 'addk');
        assert.deepEqual(index.map((m) => [m.version, m.state]), served.map((v) => [v, 'READY']), policy);
        for (const v of served) assert.deepEqual(await addK(server, 'addk', v), { version: v, k: Number(v) * 10 }, policy);
        assert.deepEqual(await addK(server, 'addk'), { version: highest, k: Number(highest) * 10 }, policy);
        for (const v of ['1', '2', '3'].filter((x) => !served.includes(x))) {
          assert.equal(server.modelReady('addk', v), false, `${policy}: version ${v}`);
        }
        // Statistics per served version.
        assert.deepEqual(server.modelStatistics('addk').model_stats.map((s) => s.version), served, policy);
      });
    } finally {
      repo.remove();
    }
  }
});

test('a model without a version folder is UNAVAILABLE with a reason', async () => {
  const repo = tempRepo({ 'empty/config.pbtxt': ADD_CONST_CONFIG('empty') });
  try {
    await withServer({ modelRepository: repo.dir }, async (server) => {
      const entry = (await server.repositoryIndex()).find((m) => m.name === 'empty')!;
      assert.equal(entry.state, 'UNAVAILABLE');
      assert.match(entry.reason, /no version directory/);
      assert.equal(server.isReady(), false, 'a model that failed to load keeps the server not ready');
      const e = await expectError(inferOnce(server, { model: 'empty', inputs: [x4(1, () => 0)] }));
      assert.equal(e.kind, 'NOT_FOUND');
      assert.match(e.message, /no version directory/);
    });
  } finally {
    repo.remove();
  }
});

test('config-less models are auto-completed, including symbolic (paddle2onnx-style) dims', async () => {
  const repo = tempRepo();
  repo.onnx('p2o', 'p2o_dims.onnx');
  repo.onnx('fixed', 'fixed_shape.onnx');
  try {
    await withServer({ modelRepository: repo.dir }, async (server) => {
      const cfg = server.modelConfig('p2o');
      assert.equal(cfg.max_batch_size, 4, 'symbolic first dim = batchable');
      assert.equal(cfg.platform, 'onnxruntime_onnx');
      assert.deepEqual(cfg.input.map((i) => [i.name, i.data_type, i.dims]), [['x', 'TYPE_FP32', [3, -1]]]);
      assert.deepEqual(cfg.output.map((i) => [i.name, i.data_type, i.dims]), [['y', 'TYPE_FP32', [3, -1]]]);
      const data = Float32Array.from({ length: 2 * 3 * 5 }, (_, i) => i - 7.5);
      const res = await inferOnce(server, { model: 'p2o', inputs: [createTensor('x', 'FP32', [2, 3, 5], data)] });
      assert.deepEqual(res.outputs[0]!.shape, [2, 3, 5]);
      assert.deepEqual([...(res.outputs[0]!.data as Float32Array)], [...data]);
      // A fixed-shape model is not batchable.
      const fixed = server.modelConfig('fixed');
      assert.equal(fixed.max_batch_size, 0);
      assert.deepEqual(fixed.input[0]!.dims, [2, 3]);
      assert.deepEqual(server.modelMetadata('p2o').inputs[0]!.shape, [-1, 3, -1]);
    });
  } finally {
    repo.remove();
  }
});

test('--strict-model-config=true refuses a config-less model but serves complete configs', async () => {
  const repo = tempRepo({ 'simple/config.pbtxt': simpleConfig() });
  repo.onnx('simple', 'simple.onnx');
  repo.onnx('bare', 'identity_fp32.onnx');
  try {
    await withServer({ modelRepository: repo.dir, strictModelConfig: true }, async (server) => {
      const index = await server.repositoryIndex();
      const bare = index.find((m) => m.name === 'bare')!;
      assert.equal(bare.state, 'UNAVAILABLE');
      assert.match(bare.reason, /no config\.pbtxt.*strict-model-config=true/);
      assert.equal(index.find((m) => m.name === 'simple')!.state, 'READY');
      const e = await expectError(inferOnce(server, { model: 'bare', inputs: [createTensor('INPUT0', 'FP32', [1, 16], new Float32Array(16))] }));
      assert.equal(e.kind, 'NOT_FOUND');
    });
  } finally {
    repo.remove();
  }
});

test('a config that disagrees with the ONNX graph is UNAVAILABLE with a reason naming both', async () => {
  const wrongType = simpleConfig().replace('name: "INPUT1" data_type: TYPE_INT32', 'name: "INPUT1" data_type: TYPE_FP32');
  const wrongDims = ADD_CONST_CONFIG('dims').replace('name: "y" data_type: TYPE_FP32 dims: [ 4 ]', 'name: "y" data_type: TYPE_FP32 dims: [ 5 ]');
  const repo = tempRepo({ 'simple/config.pbtxt': wrongType, 'dims/config.pbtxt': wrongDims });
  repo.onnx('simple', 'simple.onnx');
  repo.file('dims/1/model.onnx', addConstModel(1));
  try {
    await withServer({ modelRepository: repo.dir }, async (server) => {
      const index = await server.repositoryIndex();
      const simple = index.find((m) => m.name === 'simple')!;
      assert.equal(simple.state, 'UNAVAILABLE');
      assert.match(simple.reason, /input 'INPUT1': config data_type TYPE_FP32 but the model has TYPE_INT32/);
      const dims = index.find((m) => m.name === 'dims')!;
      assert.equal(dims.state, 'UNAVAILABLE');
      assert.match(dims.reason, /output 'y'.*\[5\].*model shape.*4/);
      assert.equal(server.isReady(), false);
    });
  } finally {
    repo.remove();
  }
});

test('label_filename: classification answers carry the labels', async () => {
  const labels = Array.from({ length: 16 }, (_, i) => `class_${String.fromCharCode(97 + i)}`);
  const repo = tempRepo({
    'simple/config.pbtxt': simpleConfig('', 'label_filename: "labels.txt"'),
    'simple/labels.txt': labels.join('\n') + '\n',
  });
  repo.onnx('simple', 'simple.onnx');
  try {
    await withServer({ modelRepository: repo.dir }, async (server) => {
      const a = int32s(32, (i) => (i * 7) % 16);
      const res = await inferOnce(server, {
        model: 'simple',
        inputs: [createTensor('INPUT0', 'INT32', [2, 16], a), createTensor('INPUT1', 'INT32', [2, 16], int32s(32, () => 1))],
        outputs: [{ name: 'OUTPUT0', parameters: { classification: 3 } }, { name: 'OUTPUT1', parameters: { classification: 1 } }],
      });
      const text = (name: string) => (res.outputs.find((t) => t.name === name)!.data as Uint8Array[]).map((b) => new TextDecoder().decode(b));
      // Expected from the inputs: OUTPUT0 = a + 1, top 3 per row with its index and label.
      const expected: string[] = [];
      for (let row = 0; row < 2; row++) {
        const vals = [...a.slice(row * 16, row * 16 + 16)].map((v, i) => [v + 1, i] as const);
        vals.sort((p, q) => q[0] - p[0] || p[1] - q[1]);
        for (const [v, i] of vals.slice(0, 3)) expected.push(`${v}:${i}:${labels[i]}`);
      }
      assert.deepEqual(text('OUTPUT0'), expected);
      assert.equal(res.outputs.find((t) => t.name === 'OUTPUT0')!.shape.join(','), '2,3');
      // No label file for OUTPUT1: value:index only.
      assert.ok(text('OUTPUT1').every((s) => /^-?\d+:\d+$/.test(s)), text('OUTPUT1').join(' '));
    });
  } finally {
    repo.remove();
  }
});

test('a missing label file makes the model UNAVAILABLE naming the file', async () => {
  const repo = tempRepo({ 'simple/config.pbtxt': simpleConfig('', 'label_filename: "nope.txt"') });
  repo.onnx('simple', 'simple.onnx');
  try {
    await withServer({ modelRepository: repo.dir }, async (server) => {
      const e = (await server.repositoryIndex()).find((m) => m.name === 'simple')!;
      assert.equal(e.state, 'UNAVAILABLE');
      assert.match(e.reason, /output 'OUTPUT0' label_filename 'nope\.txt' not found in the model directory/);
    });
  } finally {
    repo.remove();
  }
});

const WARMUP_OK = `
model_warmup [
  { name: "zeros" batch_size: 2 count: 3
    inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 16 ] zero_data: true } }
    inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 16 ] zero_data: true } } },
  { name: "random" batch_size: 1
    inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 16 ] random_data: true } }
    inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 16 ] random_data: true } } }
]`;

const WARMUP_BAD = `
model_warmup [
  { name: "wrong_shape" batch_size: 1
    inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 15 ] zero_data: true } }
    inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 15 ] zero_data: true } } }
]`;

test('model_warmup (zero_data, random_data) runs through onnxruntime before the model is READY', async () => {
  const repo = tempRepo({
    'simple/config.pbtxt': simpleConfig(WARMUP_OK),
    'bad_warm/config.pbtxt': simpleConfig(WARMUP_BAD).replace('name: "simple"', 'name: "bad_warm"'),
  });
  repo.onnx('simple', 'simple.onnx');
  repo.onnx('bad_warm', 'simple.onnx');
  try {
    await withServer({ modelRepository: repo.dir, modelControlMode: 'explicit' }, async (server) => {
      const seen: Array<{ rec: RequestRecord; readyThen: boolean }> = [];
      server.addListener({ onRequest: (rec) => seen.push({ rec, readyThen: server.modelReady(rec.model) }) });
      await server.loadModel('simple');
      const warm = seen.filter((s) => s.rec.model === 'simple');
      // 3 x "zeros" (batch 2) + 1 x "random" (batch 1), all successful, all before READY.
      assert.deepEqual(warm.map((s) => [s.rec.success, s.rec.batchSize, s.readyThen]), [
        [true, 2, false], [true, 2, false], [true, 2, false], [true, 1, false],
      ]);
      assert.equal(server.modelReady('simple'), true);

      const e = await expectError(server.loadModel('bad_warm'));
      assert.match(e.message, /^load failed for model 'bad_warm': version 1 is at UNAVAILABLE state: .*warmup 'wrong_shape' failed.*INPUT0/s);
      const entry = (await server.repositoryIndex()).find((m) => m.name === 'bad_warm')!;
      assert.equal(entry.state, 'UNAVAILABLE');
      assert.match(entry.reason, /warmup 'wrong_shape'/);
      assert.equal(server.modelReady('bad_warm'), false);
    });
  } finally {
    repo.remove();
  }
});
