/**
 * The repository side of path confinement, in process: names given at start, symbolic links the
 * operator may still use (inside a model directory, or the model directory itself), load errors
 * that name paths relative to the model directory, and readiness after failed loads.
 */
import assert from 'node:assert/strict';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setLogSink } from '../../src/logger.js';
import { DEFAULT_UPLOAD_LIMITS } from '../../src/repository/index.js';
import { inferOnce } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { expectError } from '../helpers/expect-error.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { withServer } from '../helpers/with-server.js';
import { ADD_CONST_CONFIG, addConstModel } from './add-const-model.js';

setLogSink(() => {}); // start-up failures are logged as errors; the assertions are on the API

const x4 = () => createTensor('x', 'FP32', [1, 4], Float32Array.from([1, 2, 3, 4]));

test('--load-model with an invalid name is reported at start and keeps the server not ready', async () => {
  const repo = tempRepo({ 'addk/config.pbtxt': ADD_CONST_CONFIG('addk') });
  repo.file('addk/1/model.onnx', addConstModel(1));
  try {
    await withServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['addk', '../addk'] }, async (server) => {
      assert.equal(server.modelReady('addk'), true);
      const bad = (await server.repositoryIndex()).find((m) => m.name === '../addk');
      assert.equal(bad?.state, 'UNAVAILABLE');
      assert.match(bad!.reason, /^invalid model name '\.\.\/addk', model name must not contain path traversal characters; it contains a path separator/);
      assert.equal(server.isReady(), false, 'a start-up failure holds readiness back, as before');
    });
  } finally {
    repo.remove();
  }
});

test('a failed API load leaves readiness as it was, in both directions', async () => {
  const repo = tempRepo({ 'nover/config.pbtxt': ADD_CONST_CONFIG('nover'), 'other/config.pbtxt': ADD_CONST_CONFIG('other') });
  try {
    await withServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['nover'] }, async (server) => {
      assert.equal(server.isReady(), false, 'start-up failure');
      await expectError(server.loadModel('nover'));
      assert.equal(server.isReady(), false, 'a failed API reload does not make it ready');
      await server.unloadModel('nover');
      assert.equal(server.isReady(), true);
      const e = await expectError(server.loadModel('other'));
      assert.equal(e.kind, 'INVALID_ARG');
      assert.equal(server.isReady(), true, 'a failed API load does not make it not ready');
      assert.equal((await server.repositoryIndex()).find((m) => m.name === 'other')?.state, 'UNAVAILABLE', 'the failure still shows in the index');
    });
  } finally {
    repo.remove();
  }
});

test('symbolic links that stay inside: a version directory linked to another, and a model directory linked into the repository', async () => {
  const repo = tempRepo({ 'linked_version/config.pbtxt': ADD_CONST_CONFIG('linked_version', 'version_policy: { all: {} }') });
  repo.file('linked_version/1/model.onnx', addConstModel(1));
  symlinkSync(join(repo.dir, 'linked_version', '1'), join(repo.dir, 'linked_version', '2'));
  // The remedy for a model kept elsewhere: link the whole model directory, not files inside it.
  const kept = tempRepo({});
  kept.file('kept/config.pbtxt', ADD_CONST_CONFIG('kept'));
  kept.file('kept/1/model.onnx', addConstModel(5));
  symlinkSync(join(kept.dir, 'kept'), join(repo.dir, 'kept'));
  try {
    await withServer({ modelRepository: repo.dir }, async (server) => {
      assert.deepEqual(server.modelMetadata('linked_version').versions, ['1', '2']);
      const res = await inferOnce(server, { model: 'kept', inputs: [x4()] });
      assert.deepEqual([...(res.outputs[0]!.data as Float32Array)], [6, 7, 8, 9]);
    });
  } finally {
    repo.remove();
    kept.remove();
  }
});

test('load errors name files relative to the model directory, never the repository path', async () => {
  const repo = tempRepo({
    nover: '', // replaced below by a directory
    'twocfg/config.pbtxt': ADD_CONST_CONFIG('twocfg'), 'twocfg/config.yaml': 'name: twocfg\n',
    'guess/config.pbtxt': 'name: "guess"\n', 'guess/1/readme.txt': 'no model file here',
    'badcfg/config.pbtxt': ADD_CONST_CONFIG('badcfg', 'bogus_field: 1'),
    'nofile/config.pbtxt': ADD_CONST_CONFIG('nofile'), 'nofile/1/.keep': '',
  });
  rmSync(join(repo.dir, 'nover'));
  repo.file('nover/config.pbtxt', ADD_CONST_CONFIG('nover'));
  repo.file('badcfg/1/model.onnx', addConstModel(1));
  try {
    await withServer({ modelRepository: repo.dir, modelControlMode: 'explicit' }, async (server) => {
      const V1 = 'version 1 is at UNAVAILABLE state: Invalid argument: ';
      const cases: Array<[string, RegExp, string?]> = [
        ['nover', /^load failed for model 'nover': no version directory of the model matches its version_policy \(found: none\)$/],
        ['twocfg', /^failed to load 'twocfg', failed to poll from model repository; more than one config file in the model directory: config\.pbtxt, config\.yaml/],
        ['guess', new RegExp(`^load failed for model 'guess': ${V1}Invalid model name: Could not determine backend for model 'guess' with no backend in model configuration\\. Expected model name of the form 'model\\.<backend_name>'\\.`)],
        ['badcfg', new RegExp(`^load failed for model 'badcfg': ${V1}model 'badcfg': unknown field 'bogus_field' in ModelConfig.*; badcfg/config\\.pbtxt:\\d+:\\d+;$`)],
        ['nofile', new RegExp(`^load failed for model 'nofile': ${V1}model file '1/model\\.onnx' not found in the model directory;$`)],
      ];
      for (const [name, message, kind = 'INVALID_ARG'] of cases) {
        const e = await expectError(server.loadModel(name));
        assert.equal(e.kind, kind, `${name}: ${e.message}`);
        assert.match(e.message, message);
        assert.ok(!e.message.includes(repo.dir), `${name} leaks the repository path: ${e.message}`);
      }
    });
  } finally {
    repo.remove();
  }
});

test('upload limits have documented defaults', () => {
  assert.deepEqual({ ...DEFAULT_UPLOAD_LIMITS }, { maxBytes: 2 * 1024 ** 3, maxFiles: 1000 });
});
