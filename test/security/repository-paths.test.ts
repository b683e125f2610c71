/**
 * Attacks on the model repository's paths over real HTTP and gRPC connections: model names and
 * `file:` keys of the load API, every config field that names a file (uploaded and on disk),
 * symbolic links out of a model directory, ONNX external data, upload limits, and what a failed
 * load must leave as it was (the serving version, readiness, no upload directory). Each case asserts
 * the refusal and that nothing outside the repository was written, created or read into a response
 * (see repository-attack-kit.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { testModelPath } from '../../scripts/build-test-models.js';
import { createGraph, onnx } from '../../scripts/onnx/index.js';
import { ADD_CONST_CONFIG, addConstModel } from '../repository/add-const-model.js';
import {
  SECRET, assertRefused, uploadDirs, grpcLoad, grpcUnload, httpLoad, httpParams, httpUnload, isReadyOverBoth, load, startKit, type Kit,
} from './repository-attack-kit.js';

/** y = x + k over FP32 [batch, 4], with k (4 floats) stored as ONNX external data at `location`. */
function externalDataModel(location: string): Uint8Array {
  const m = createGraph('ext').input('x', 'FP32', ['batch', 4]).initializer('k', 'FP32', [4], [0, 0, 0, 0])
    .node('Add', ['x', 'k'], ['y']).output('y', 'FP32', ['batch', 4]).build();
  const k = m.graph!.initializer![0]!;
  k.rawData = new Uint8Array(0);
  k.dataLocation = onnx.TensorProto.DataLocation.EXTERNAL;
  k.externalData = [{ key: 'location', value: location }, { key: 'offset', value: '0' }, { key: 'length', value: '16' }];
  return onnx.ModelProto.encode(m).finish();
}

const identityPbtxt = (name: string, out = '', extra = '') => `
name: "${name}"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 2 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 2 ] ${out} } ]
${extra}`;

const warmupPbtxt = (file: string) =>
  `model_warmup [ { name: "w" inputs { key: "IN" value: { data_type: TYPE_INT32 dims: [ 2 ] input_data_file: "${file}" } } } ]`;

const accumulatorPbtxt = (name: string, dataFile: string) => `
name: "${name}"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "INPUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
sequence_batching {
  direct { max_queue_delay_microseconds: 1000 }
  state [ { input_name: "STATE_IN" output_name: "OUTPUT_STATE" data_type: TYPE_FP32 dims: [ 1 ]
    initial_state { data_type: TYPE_FP32 dims: [ 1 ] data_file: "${dataFile}" name: "init" } } ]
}`;

/** JSON configs for uploads. */
const identityJson = (name: string, extra: Record<string, unknown> = {}, out: Record<string, unknown> = {}) => JSON.stringify({
  name, backend: 'identity', max_batch_size: 0,
  input: [{ name: 'IN', data_type: 'TYPE_INT32', dims: [2] }],
  output: [{ name: 'OUT', data_type: 'TYPE_INT32', dims: [2], ...out }],
  ...extra,
});
const addJson = (name: string, extra: Record<string, unknown> = {}) => JSON.stringify({
  name, platform: 'onnxruntime_onnx', max_batch_size: 8,
  input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [4] }], output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [4] }],
  ...extra,
});
const accumulatorJson = (name: string, dataFile: string) => JSON.stringify({
  name, platform: 'onnxruntime_onnx', max_batch_size: 8,
  input: [{ name: 'INPUT', data_type: 'TYPE_FP32', dims: [1] }], output: [{ name: 'OUTPUT', data_type: 'TYPE_FP32', dims: [1] }],
  sequence_batching: {
    direct: { max_queue_delay_microseconds: 1000 },
    state: [{ input_name: 'STATE_IN', output_name: 'OUTPUT_STATE', data_type: 'TYPE_FP32', dims: [1],
      initial_state: [{ data_type: 'TYPE_FP32', dims: [1], data_file: dataFile, name: 'init' }] }],
  },
});

const IDENTITY_FILES = { '1/model.identity': '' };
const ADD1 = () => ({ '1/model.onnx': addConstModel(1) });
/** From a version directory of an upload (<tmp>/tributary-load-X/<model>/1/) up to the filesystem root. */
const UP = '../'.repeat(24);

let kit: Kit;
let outside: string;

function setupRepo(repo: string, out: string): void {
  outside = out;
  /** `out`/`file` as a path relative to `<repo>/<from>`: the dot-dot way to the sentinels. */
  const up = (from: string, file: string) => relative(join(repo, from), join(out, file));
  const file = (rel: string, data: string | Uint8Array) => {
    mkdirSync(join(repo, rel, '..'), { recursive: true });
    writeFileSync(join(repo, rel), data);
  };
  const accumulator = (model: string) => file(`${model}/1/model.onnx`, readFileSync(testModelPath('accumulator.onnx')));
  writeFileSync(join(out, 'vdir', '1', 'model.onnx'), addConstModel(1000));
  // Real models outside: one that loaded would answer x + 1000.
  writeFileSync(join(out, 'model.onnx'), addConstModel(1000));

  file('served/config.pbtxt', ADD_CONST_CONFIG('served'));
  file('served/1/model.onnx', addConstModel(1));

  file('label_dotdot/config.pbtxt', identityPbtxt('label_dotdot', `label_filename: "${up('label_dotdot', 'secret.txt')}"`));
  file('label_dotdot/1/model.identity', '');
  file('label_abs/config.pbtxt', identityPbtxt('label_abs', `label_filename: "${join(out, 'secret.txt')}"`));
  file('label_abs/1/model.identity', '');
  file('label_link/config.pbtxt', identityPbtxt('label_link', 'label_filename: "labels.txt"'));
  file('label_link/1/model.identity', '');
  symlinkSync(join(out, 'secret.txt'), join(repo, 'label_link', 'labels.txt'));

  file('model_link/config.pbtxt', ADD_CONST_CONFIG('model_link'));
  mkdirSync(join(repo, 'model_link', '1'));
  symlinkSync(join(out, 'model.onnx'), join(repo, 'model_link', '1', 'model.onnx'));
  file('version_link/config.pbtxt', ADD_CONST_CONFIG('version_link'));
  symlinkSync(join(out, 'vdir', '1'), join(repo, 'version_link', '1'));
  file('dmf_dotdot/config.pbtxt', ADD_CONST_CONFIG('dmf_dotdot', `default_model_filename: "${up('dmf_dotdot/1', 'model.onnx')}"`));
  file('dmf_dotdot/1/.keep', '');
  file('dmf_abs/config.pbtxt', ADD_CONST_CONFIG('dmf_abs', `default_model_filename: "${join(out, 'model.onnx')}"`));
  file('dmf_abs/1/.keep', '');

  file('state_dotdot/config.pbtxt', accumulatorPbtxt('state_dotdot', up('state_dotdot/initial_state', 'secret.bin')));
  accumulator('state_dotdot');
  file('state_dirlink/config.pbtxt', accumulatorPbtxt('state_dirlink', 'secret.bin'));
  accumulator('state_dirlink');
  symlinkSync(out, join(repo, 'state_dirlink', 'initial_state'));

  file('warmup_dotdot/config.pbtxt', identityPbtxt('warmup_dotdot', '', warmupPbtxt(up('warmup_dotdot/warmup', 'secret.bin'))));
  file('warmup_dotdot/1/model.identity', '');
  file('warmup_dirlink/config.pbtxt', identityPbtxt('warmup_dirlink', '', warmupPbtxt('secret.bin')));
  file('warmup_dirlink/1/model.identity', '');
  symlinkSync(out, join(repo, 'warmup_dirlink', 'warmup'));

  mkdirSync(join(repo, 'config_link', '1'), { recursive: true });
  symlinkSync(join(out, 'secret.txt'), join(repo, 'config_link', 'config.pbtxt'));

  file('ensemble_step/config.pbtxt', `
name: "ensemble_step"
platform: "ensemble"
max_batch_size: 8
input [ { name: "A" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "B" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [ { model_name: "../outside" model_version: -1 input_map { key: "x" value: "A" } output_map { key: "y" value: "B" } } ] }`);

  // TypeScript models: the script itself (model.ts, or the model.js fallback) linked out.
  writeFileSync(join(out, 'evil.ts'), `export default { execute() { return []; } };\n// ${SECRET}\n`);
  for (const [model, script] of [['ts_link', 'model.ts'], ['ts_js_link', 'model.js']] as const) {
    file(`${model}/config.pbtxt`, identityPbtxt(model).replace('backend: "identity"', 'backend: "typescript"'));
    mkdirSync(join(repo, model, '1'));
    symlinkSync(join(out, 'evil.ts'), join(repo, model, '1', script));
  }

  file('ext_dotdot/config.pbtxt', ADD_CONST_CONFIG('ext_dotdot'));
  file('ext_dotdot/1/model.onnx', externalDataModel(up('ext_dotdot/1', 'secret.bin')));
  file('ext_abs/config.pbtxt', ADD_CONST_CONFIG('ext_abs'));
  file('ext_abs/1/model.onnx', externalDataModel(join(out, 'secret.bin')));
  file('ext_link/config.pbtxt', ADD_CONST_CONFIG('ext_link'));
  file('ext_link/1/model.onnx', externalDataModel('weights.bin'));
  symlinkSync(join(out, 'secret.bin'), join(repo, 'ext_link', '1', 'weights.bin'));
}

before(async () => {
  kit = await startKit(setupRepo, { loadModels: ['served'], uploadLimits: { maxFiles: 8, maxBytes: 256 * 1024 } });
});
after(async () => {
  await kit?.close();
});

/** Run an attack and hand the verdict to assertRefused with the snapshot taken just before. */
async function attack(run: () => Promise<Parameters<typeof assertRefused>[1]>, prefix: string | RegExp): Promise<void> {
  const snapshot = kit.snapshot();
  const r = await run();
  await assertRefused(kit, r, prefix, snapshot);
}

async function inferServed(): Promise<number[]> {
  const r = await kit.http('POST', '/v2/models/served/infer', { inputs: [{ name: 'x', shape: [1, 4], datatype: 'FP32', data: [1, 2, 3, 4] }] });
  assert.equal(r.status, 200, r.text);
  assert.ok(!r.text.includes(SECRET));
  return (JSON.parse(r.text) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data;
}

// --- model names of the load and unload API --------------------------------------------------

const NAME_INVALID = 'invalid model name ';
for (const [transport, name, what] of [
  ['http', '../pwned', 'dot-dot with a separator'], ['grpc', '../pwned', 'dot-dot with a separator'],
  ['http', '..', "'..'"], ['grpc', '.', "'.'"],
  ['http', 'a\0b', 'NUL'], ['grpc', 'a\0b', 'NUL'],
  ['http', 'n'.repeat(256), 'over 255 bytes'], ['grpc', 'é'.repeat(200), 'over 255 bytes (UTF-8)'],
  ['grpc', '/tmp/pwned', 'absolute path'], ['http', '..\\pwned', 'backslash'],
] as const) {
  test(`${transport} load: model name ${what} is refused before any file is written`, async () => {
    await attack(() => load(kit, transport, name, { config: identityJson('x'), files: IDENTITY_FILES }), NAME_INVALID);
  });
}

test('http unload: a model name with a separator is refused', async () => {
  await attack(() => httpUnload(kit, '../served'), NAME_INVALID);
  assert.equal(kit.server.modelReady('served'), true);
});

test('grpc unload: a NUL in the model name is refused', async () => {
  await attack(() => grpcUnload(kit, 'served\0'), NAME_INVALID);
});

// --- file: keys ---------------------------------------------------------------------------------

const FILE_REFUSED = /^failed to load 'up', failed to poll from model repository; load parameter "file:.*" is refused: /;
for (const [transport, key, what] of [
  ['http', '../../../pwned.txt', 'dot-dot out of the upload directory'],
  ['grpc', '@UP/pwned.txt', 'dot-dot into the sentinel directory'],
  ['http', '@OUT/pwned.txt', 'absolute path'], ['grpc', '@OUT/pwned.txt', 'absolute path'],
  ['http', '1/model\0.onnx', 'NUL'], ['grpc', '1/\0', 'NUL'],
  ['http', `1/${'d/'.repeat(600)}f`, 'over-long path'], ['grpc', `1/${'x'.repeat(300)}`, 'over-long component'],
  ['grpc', '..\\..\\..\\outside\\pwned.txt', 'backslash dot-dot'], ['http', '', 'empty name'],
] as const) {
  test(`${transport} load: file: key, ${what}, is refused`, async () => {
    const name = key.replace('@OUT', outside).replace('@UP', `${UP}${outside.slice(1)}`);
    await attack(() => load(kit, transport, 'up', { config: identityJson('up'), files: { ...IDENTITY_FILES, [name]: 'pwned' } }), FILE_REFUSED);
    assert.equal(existsSync(join(outside, 'pwned.txt')), false);
    assert.equal(existsSync(join(kit.base, 'pwned.txt')), false);
  });
}

test('http load: two file: keys that collide (a file where a directory is needed) are refused', async () => {
  await attack(() => httpLoad(kit, 'up', httpParams({ config: identityJson('up'), files: { ...IDENTITY_FILES, x: 'a', 'x/y': 'b' } })),
    /^failed to load 'up', failed to poll from model repository; load parameter "file:x\/y" collides with another 'file:' parameter/);
});

test("grpc load: a file: key naming the model directory itself ('.') is refused", async () => {
  await attack(() => grpcLoad(kit, 'up', { config: identityJson('up'), files: { ...IDENTITY_FILES, '.': 'x' } }),
    "failed to load 'up', failed to poll from model repository; load parameter \"file:.\" names the model directory itself");
});

// --- the config parameter -------------------------------------------------------------------------

test('http load: config text that is not JSON is refused', async () => {
  await attack(() => httpLoad(kit, 'up', httpParams({ config: '{ "name": ', files: IDENTITY_FILES })), /parameter 'config' JSON/);
});

test('grpc load: config text that is not JSON is refused with Triton wording', async () => {
  await attack(() => grpcLoad(kit, 'up', { config: '{ not json', files: IDENTITY_FILES }), "failed to load 'up', failed to poll from model repository; Invalid config override: the 'config' parameter is not valid JSON");
});

test('grpc load: a config that is JSON but not an object is refused', async () => {
  await attack(() => grpcLoad(kit, 'up', { config: '["/etc/passwd"]', files: IDENTITY_FILES }), "failed to load 'up', failed to poll from model repository; Invalid config override: the 'config' parameter must be a JSON object");
});

test("grpc load: file: parameters without 'config' are refused", async () => {
  await attack(() => grpcLoad(kit, 'up', { files: IDENTITY_FILES }), /need a 'config' parameter/);
});

// --- file-naming config fields of an uploaded model -------------------------------------------------

const secretTxt = () => join(outside, 'secret.txt');
const secretBin = () => join(outside, 'secret.bin');

test('http upload: label_filename climbing out of the upload directory is refused', async () => {
  await attack(() => httpLoad(kit, 'up', httpParams({ config: identityJson('up', {}, { label_filename: `${UP}${secretTxt().slice(1)}` }), files: IDENTITY_FILES })),
    /^load failed for model 'up': version 1 is at UNAVAILABLE state: Invalid argument: output 'OUT' label_filename ".*" is refused: it contains '\.\.'/);
});

test('grpc upload: an absolute label_filename is refused', async () => {
  await attack(() => grpcLoad(kit, 'up', { config: identityJson('up', {}, { label_filename: secretTxt() }), files: IDENTITY_FILES }),
    /^load failed for model 'up': version 1 is at UNAVAILABLE state: Invalid argument: output 'OUT' label_filename ".*" is refused: it is an absolute path/);
});

test('http upload: an absolute default_model_filename (a real ONNX model outside) is refused', async () => {
  await attack(() => httpLoad(kit, 'up', httpParams({ config: addJson('up', { default_model_filename: join(outside, 'model.onnx') }), files: { '1/.keep': '' } })),
    /^load failed for model 'up': version 1 is at UNAVAILABLE state: Invalid argument: default_model_filename ".*" is refused: it is an absolute path/);
});

test('grpc upload: default_model_filename with dot-dot is refused', async () => {
  await attack(() => grpcLoad(kit, 'up', { config: addJson('up', { default_model_filename: `${UP}${join(outside, 'model.onnx').slice(1)}` }), files: { '1/.keep': '' } }),
    /^load failed for model 'up': version 1 is at UNAVAILABLE state: Invalid argument: default_model_filename ".*" is refused: it contains '\.\.'/);
});

test('http upload: a warmup input_data_file climbing out is refused', async () => {
  const warm = { model_warmup: [{ name: 'w', inputs: { IN: { data_type: 'TYPE_INT32', dims: [2], input_data_file: `../${UP}${secretBin().slice(1)}` } } }] };
  await attack(() => httpLoad(kit, 'up', httpParams({ config: identityJson('up', warm), files: IDENTITY_FILES })),
    /^load failed for model 'up': version 1 is at UNAVAILABLE state: Invalid argument: model_warmup 'w' input 'IN' input_data_file ".*" is refused: it contains '\.\.'/);
});

test('grpc upload: an absolute initial_state data_file is refused', async () => {
  await attack(() => grpcLoad(kit, 'up', { config: accumulatorJson('up', secretBin()), files: { '1/model.onnx': readFileSync(testModelPath('accumulator.onnx')) } }),
    /^load failed for model 'up': version 1 is at UNAVAILABLE state: Invalid argument: sequence_batching state 'STATE_IN' initial_state data_file ".*" is refused: it is an absolute path/);
});

test('http upload: ONNX external data with a dot-dot location is refused by onnxruntime, without server paths', async () => {
  await attack(() => httpLoad(kit, 'up', httpParams({ config: addJson('up'), files: { '1/model.onnx': externalDataModel(`${UP}${secretBin().slice(1)}`) } })),
    /^load failed for model 'up': version 1 is at UNAVAILABLE state: Invalid argument: onnxruntime could not load '1\/model\.onnx': .*External data path/);
});

test('grpc upload: ONNX external data with an absolute location is refused by onnxruntime', async () => {
  await attack(() => grpcLoad(kit, 'up', { config: addJson('up'), files: { '1/model.onnx': externalDataModel(secretBin()) } }),
    /^load failed for model 'up': version 1 is at UNAVAILABLE state: Invalid argument: onnxruntime could not load '1\/model\.onnx': .*Absolute path not allowed/);
});

test('control: ONNX external data inside the version directory loads and serves (so the refusals above are about the location)', async () => {
  const weights = new Uint8Array(Float32Array.from([10, 20, 30, 40]).buffer);
  const r = await httpLoad(kit, 'ext_ok', httpParams({ config: addJson('ext_ok'), files: { '1/model.onnx': externalDataModel('weights.bin'), '1/weights.bin': weights } }));
  assert.equal(r.status, 200, r.message);
  const res = await kit.http('POST', '/v2/models/ext_ok/infer', { inputs: [{ name: 'x', shape: [1, 4], datatype: 'FP32', data: [1, 2, 3, 4] }] });
  assert.deepEqual((JSON.parse(res.text) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data, [11, 22, 33, 44]);
  assert.equal((await httpUnload(kit, 'ext_ok')).status, 200);
  assert.deepEqual(uploadDirs(kit), []);
});

// --- upload limits ---------------------------------------------------------------------------------

test('http upload: more file: parameters than the limit are refused before anything is written', async () => {
  const files = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`1/f${i}`, 'x']));
  await attack(() => httpLoad(kit, 'up', httpParams({ config: identityJson('up'), files })),
    "failed to load 'up', failed to poll from model repository; the request sends 9 'file:' parameters, more than the limit of 8");
});

test('grpc upload: more bytes than the limit are refused before anything is written', async () => {
  await attack(() => grpcLoad(kit, 'up', { config: identityJson('up'), files: { ...IDENTITY_FILES, '1/big.bin': new Uint8Array(256 * 1024 + 1) } }),
    `failed to load 'up', failed to poll from model repository; the 'file:' parameters hold ${256 * 1024 + 1} bytes, more than the limit of ${256 * 1024}`);
});

// --- file-naming fields and symbolic links in the repository on disk --------------------------------

for (const [transport, model, prefix] of [
  ['grpc', 'label_dotdot', /^load failed for model 'label_dotdot': version 1 is at UNAVAILABLE state: Invalid argument: output 'OUT' label_filename "(\.\.\/)+.*secret\.txt" is refused: it contains '\.\.'/],
  ['http', 'label_abs', `load failed for model 'label_abs': version 1 is at UNAVAILABLE state: Invalid argument: output 'OUT' label_filename "`],
  ['grpc', 'label_link', `load failed for model 'label_link': version 1 is at UNAVAILABLE state: Invalid argument: output 'OUT' label_filename "labels.txt" is refused: it leaves its directory through a symbolic link`],
  ['http', 'model_link', `load failed for model 'model_link': version 1 is at UNAVAILABLE state: Invalid argument: model file "model.onnx" is refused: it leaves its directory through a symbolic link`],
  ['grpc', 'version_link', `load failed for model 'version_link': version 1 is at UNAVAILABLE state: Invalid argument: version directory "1" is refused: it leaves its directory through a symbolic link`],
  ['http', 'dmf_dotdot', /^load failed for model 'dmf_dotdot': version 1 is at UNAVAILABLE state: Invalid argument: default_model_filename "(\.\.\/)+.*model\.onnx" is refused: it contains '\.\.'/],
  ['grpc', 'dmf_abs', `load failed for model 'dmf_abs': version 1 is at UNAVAILABLE state: Invalid argument: default_model_filename "`],
  ['http', 'state_dotdot', /^load failed for model 'state_dotdot': version 1 is at UNAVAILABLE state: Invalid argument: sequence_batching state 'STATE_IN' initial_state data_file "(\.\.\/)+.*secret\.bin" is refused: it contains '\.\.'/],
  ['grpc', 'state_dirlink', `load failed for model 'state_dirlink': version 1 is at UNAVAILABLE state: Invalid argument: sequence_batching state 'STATE_IN' initial_state data_file "initial_state/secret.bin" is refused: it leaves its directory through a symbolic link`],
  ['http', 'warmup_dotdot', /^load failed for model 'warmup_dotdot': version 1 is at UNAVAILABLE state: Invalid argument: model_warmup 'w' input 'IN' input_data_file "(\.\.\/)+.*secret\.bin" is refused: it contains '\.\.'/],
  ['grpc', 'warmup_dirlink', `load failed for model 'warmup_dirlink': version 1 is at UNAVAILABLE state: Invalid argument: model_warmup 'w' input 'IN' input_data_file "warmup/secret.bin" is refused: it leaves its directory through a symbolic link`],
  ['http', 'config_link', `failed to load 'config_link', failed to poll from model repository; config file "config.pbtxt" is refused: it leaves its directory through a symbolic link`],
  ['grpc', 'ensemble_step', `load failed for model 'ensemble_step': ensemble_scheduling step model_name: invalid model name '../outside', model name must not contain path traversal characters`],
  ['http', 'ts_link', `load failed for model 'ts_link': version 1 is at UNAVAILABLE state: Invalid argument: model file "model.ts" is refused: it leaves its directory through a symbolic link`],
  ['grpc', 'ts_js_link', `load failed for model 'ts_js_link': version 1 is at UNAVAILABLE state: Invalid argument: model file "model.js" is refused: it leaves its directory through a symbolic link`],
  ['http', 'ext_dotdot', `load failed for model 'ext_dotdot': version 1 is at UNAVAILABLE state: Invalid argument: onnxruntime could not load '1/model.onnx': `],
  ['grpc', 'ext_abs', `load failed for model 'ext_abs': version 1 is at UNAVAILABLE state: Invalid argument: onnxruntime could not load '1/model.onnx': `],
  ['http', 'ext_link', `load failed for model 'ext_link': version 1 is at UNAVAILABLE state: Invalid argument: onnxruntime could not load '1/model.onnx': `],
] as const) {
  test(`${transport} load of on-disk '${model}' is refused`, async () => {
    await attack(() => load(kit, transport, model, {}), prefix);
    assert.equal(kit.server.modelReady(model), false);
  });
}

// --- a failed reload changes nothing -----------------------------------------------------------------

test('http reload with a traversing file: key keeps the loaded version answering', async () => {
  assert.deepEqual(await inferServed(), [2, 3, 4, 5]);
  await attack(() => httpLoad(kit, 'served', httpParams({ config: addJson('served'), files: { ...ADD1(), '../../../pwned.onnx': 'x' } })), /^failed to load 'served', failed to poll from model repository; load parameter "file:\.\.\/.*" is refused: it contains '\.\.'/);
  assert.deepEqual(await inferServed(), [2, 3, 4, 5]);
});

test('grpc reload whose uploaded config names a label file outside keeps the loaded version answering', async () => {
  await attack(() => grpcLoad(kit, 'served', { config: addJson('served', { output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [4], label_filename: secretTxt() }] }), files: ADD1() }),
    /^load failed for model 'served': version 1 is at UNAVAILABLE state: Invalid argument: output 'y' label_filename/);
  assert.deepEqual(await inferServed(), [2, 3, 4, 5]);
});

test('grpc reload from disk with a config override naming a model file outside keeps the loaded version answering', async () => {
  await attack(() => grpcLoad(kit, 'served', { config: addJson('served', { default_model_filename: relative(join(kit.repo, 'served', '1'), join(outside, 'model.onnx')) }) }),
    /^load failed for model 'served': version 1 is at UNAVAILABLE state: Invalid argument: default_model_filename/);
  assert.deepEqual(await inferServed(), [2, 3, 4, 5]);
  assert.deepEqual((await kit.server.repositoryIndex()).filter((m) => m.name === 'served').map((m) => m.state), ['READY']);
});

// --- upload directories: private, and gone after unload or replacement ---------------------------------

test('an upload is written to a private directory, replaced by a reload, and removed by unload', async () => {
  const before = kit.snapshot();
  const ok = await grpcLoad(kit, 'up_ok', { config: addJson('up_ok'), files: ADD1() });
  assert.equal(ok.status, status.OK, ok.message);
  const [first] = uploadDirs(kit);
  assert.ok(first?.startsWith('tributary-load-'));
  assert.equal(statSync(join(kit.tmp, first!)).mode & 0o777, 0o700, 'the upload directory is private');
  assert.equal(statSync(join(kit.tmp, first!, 'up_ok', '1', 'model.onnx')).mode & 0o077, 0, 'uploaded files are readable by the server only');
  assert.equal((await httpLoad(kit, 'up_ok', httpParams({ config: addJson('up_ok'), files: ADD1() }))).status, 200);
  const second = uploadDirs(kit);
  assert.equal(second.length, 1);
  assert.notEqual(second[0], first, 'a reload with new files replaces the directory');
  assert.equal((await grpcUnload(kit, 'up_ok')).status, status.OK);
  assert.deepEqual(uploadDirs(kit), [], 'unload removes the upload directory');
  assert.deepEqual(kit.snapshot(), before);
  assert.deepEqual(await isReadyOverBoth(kit), [true, true]);
});

test('a failed API load of a model never asked for at start leaves the server ready and the index without a trace of bad names', async () => {
  assert.deepEqual(await isReadyOverBoth(kit), [true, true]);
  const names = (await kit.server.repositoryIndex()).map((m) => m.name);
  assert.ok(!names.some((n) => /[/\\\0]/.test(n) || n === '.' || n === '..'), names.join(', '));
});
