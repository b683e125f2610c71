/**
 * --model-config-name (Triton's "Custom Model Configuration"): `configs/<name>.pbtxt` of a model
 * directory is loaded instead of config.pbtxt when it exists, config.pbtxt otherwise; the name is
 * confined to configs/ like every name that becomes a path.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempRepo } from '../helpers/temp-repo.js';
import { withServer } from '../helpers/with-server.js';
import { ADD_CONST_CONFIG, addConstModel } from './add-const-model.js';

function repo() {
  const r = tempRepo({
    'custom/config.pbtxt': ADD_CONST_CONFIG('custom'),
    'custom/configs/small.pbtxt': ADD_CONST_CONFIG('custom').replace('max_batch_size: 8', 'max_batch_size: 2'),
    'plain/config.pbtxt': ADD_CONST_CONFIG('plain'),
  });
  r.file('custom/1/model.onnx', addConstModel(1));
  r.file('plain/1/model.onnx', addConstModel(1));
  return r;
}

test('configs/<name>.pbtxt wins where it exists; other models fall back to config.pbtxt', async () => {
  const r = repo();
  try {
    await withServer({ modelRepository: r.dir, modelConfigName: 'small' }, async (server) => {
      assert.equal(server.modelConfig('custom').max_batch_size, 2);
      assert.equal(server.modelConfig('plain').max_batch_size, 8);
    });
    await withServer({ modelRepository: r.dir }, async (server) => {
      assert.equal(server.modelConfig('custom').max_batch_size, 8, 'without the flag config.pbtxt is read');
    });
  } finally {
    r.remove();
  }
});

test('a config name that climbs out of configs/ is refused, naming the flag', async () => {
  const r = repo();
  r.file('custom/outside.pbtxt', ADD_CONST_CONFIG('custom'));
  try {
    await withServer({ modelRepository: r.dir, modelControlMode: 'explicit', modelConfigName: '../outside' }, async (server) => {
      const e = await server.loadModel('custom').then(() => undefined, (err: Error) => err);
      assert.ok(e, 'the load must fail');
      assert.match(e.message, /^failed to load 'custom', failed to poll from model repository; --model-config-name "\.\.\/outside\.pbtxt" is refused: it contains '\.\.'/);
    });
  } finally {
    r.remove();
  }
});

test('validate refuses a config-less model under --strict-model-config=true, as a load does', async () => {
  const { validateRepository } = await import('../../src/repository/index.js');
  const { BackendRegistry } = await import('../../src/backend/index.js');
  const { defaultBackends } = await import('../../src/server/index.js');
  const r = tempRepo();
  r.file('bare/1/model.onnx', addConstModel(1));
  const registry = new BackendRegistry();
  for (const b of defaultBackends()) registry.register(b);
  try {
    const strict = await validateRepository([r.dir], registry, { strict: true });
    assert.deepEqual(strict.problems.map((p) => p.message), ["model 'bare': no config.pbtxt in the model directory, and --strict-model-config=true forbids auto-completing it"]);
    const lax = await validateRepository([r.dir], registry, { strict: false });
    assert.deepEqual(lax.problems.filter((p) => p.severity === 'error'), []);
    await withServer({ modelRepository: r.dir, strictModelConfig: true, modelControlMode: 'explicit' }, async (server) => {
      const e = await server.loadModel('bare').then(() => undefined, (err: Error) => err);
      assert.match(e?.message ?? '', /--strict-model-config=true forbids auto-completing it/);
    });
  } finally {
    r.remove();
  }
});
