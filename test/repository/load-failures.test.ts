/**
 * Load failures as a Triton client sees them, over HTTP and gRPC: the status and the message
 * prefix of Triton's two shapes (a request it cannot poll: "failed to load '<m>', failed to poll
 * from model repository"; a load whose versions fail: INVALID_ARG "load failed for model '<m>':
 * version <v> is at UNAVAILABLE state: ..."), and a failed reload that keeps the loaded version
 * serving. A request refused for its own content is 400 / INVALID_ARGUMENT (Triton: INTERNAL for
 * the poll shape); only a model in no repository stays INTERNAL.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { ADD_CONST_CONFIG, addConstModel } from './add-const-model.js';
import { load, startKit, type Kit, type LoadParams } from '../security/repository-attack-kit.js';

let kit: Kit;

before(async () => {
  kit = await startKit((repo, outside) => {
    mkdirSync(join(repo, 'served', '1'), { recursive: true });
    writeFileSync(join(repo, 'served', 'config.pbtxt'), ADD_CONST_CONFIG('served'));
    writeFileSync(join(repo, 'served', '1', 'model.onnx'), addConstModel(1));
    // A config file that is a link out of its model directory.
    mkdirSync(join(repo, 'linked', '1'), { recursive: true });
    writeFileSync(join(outside, 'linked.pbtxt'), ADD_CONST_CONFIG('linked'));
    symlinkSync(join(outside, 'linked.pbtxt'), join(repo, 'linked', 'config.pbtxt'));
    writeFileSync(join(repo, 'linked', '1', 'model.onnx'), addConstModel(1));
  }, { loadModels: ['served'] });
});
after(async () => {
  await kit?.close();
});

const addJson = (name: string, extra: Record<string, unknown> = {}) => JSON.stringify({
  name, platform: 'onnxruntime_onnx', max_batch_size: 8,
  input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [4] }], output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [4] }], ...extra,
});

const POLL = (m: string) => `failed to load '${m}', failed to poll from model repository; `;
const VERSION_1 = (m: string) => `load failed for model '${m}': version 1 is at UNAVAILABLE state: `;

const served = (extra: Record<string, unknown>) => ({ config: addJson('served', extra) });
/** A JSON config text with `key` set at the top and inside an input (JSON.stringify would drop `__proto__`). */
const protoKeyed = (key: string, where: 'top' | 'input') => {
  const text = addJson('served');
  return where === 'top' ? text.replace(/^\{/, `{"${key}":1,`) : text.replace('"name":"x",', `"name":"x","${key}":{},`);
};

/** [what, model, parameters, expected kind, message prefix] */
const CASES: ReadonlyArray<[string, string, LoadParams, 'INTERNAL' | 'INVALID_ARG', string]> = [
  ['an unknown model', 'ghost', {}, 'INTERNAL', `${POLL('ghost')}model not found in any model repository`],
  ['a config override that is not JSON', 'served', { config: '{ "name": ' }, 'INVALID_ARG', `${POLL('served')}Invalid config override: `],
  ['a config override that is a JSON array', 'served', { config: '[1]' }, 'INVALID_ARG', `${POLL('served')}Invalid config override: `],
  ['a config override with an unknown field', 'served', served({ bogus: 1 }), 'INVALID_ARG', `${POLL('served')}Invalid config override:`],
  ['a config override with a field of the wrong type', 'served', served({ max_batch_size: 'eight' }), 'INVALID_ARG', `${POLL('served')}Invalid config override:`],
  ['a config override with a version policy of the wrong shape', 'served', served({ version_policy: 'latest' }), 'INVALID_ARG', `${POLL('served')}Invalid config override:`],
  ['a config override whose version policy selects no version', 'served', served({ version_policy: { specific: { versions: [7] } } }), 'INVALID_ARG', "load failed for model 'served': no version directory of the model matches its version_policy"],
  ['a config override with two version policies', 'served', served({ version_policy: { latest: { num_versions: 1 }, all: {} } }), 'INVALID_ARG', `${POLL('served')}Invalid config override:`],
  ['a config override that fails validation', 'served', served({ instance_group: [{ count: -2, kind: 'KIND_CPU' }] }), 'INVALID_ARG', `${VERSION_1('served')}Invalid argument: model 'served': instance_group[0] 'served_0': count must be >= 1, got -2; `],
  ['a file: name longer than a file name can be', 'served',
    { config: addJson('served'), files: { '1/model.onnx': addConstModel(2), [`1/${'n'.repeat(300)}`]: 'x' } }, 'INVALID_ARG', `${POLL('served')}load parameter "file:1/nnn`],
  ['a file: key that climbs out', 'served', { config: addJson('served'), files: { '../x.onnx': 'x' } }, 'INVALID_ARG', `${POLL('served')}load parameter "file:../x.onnx" is refused`],
  ['a file: key that is absolute', 'served', { config: addJson('served'), files: { '/tmp/x.onnx': 'x' } }, 'INVALID_ARG', `${POLL('served')}load parameter "file:/tmp/x.onnx" is refused`],
  ['a model whose config file is a link out of its directory', 'linked', {}, 'INVALID_ARG', `${POLL('linked')}config file "config.pbtxt" is refused: it leaves its directory through a symbolic link`],
  ['a model the backend cannot create', 'served', { config: addJson('served'), files: { '1/model.onnx': 'not an onnx model' } }, 'INVALID_ARG', VERSION_1('served')],
  ...['constructor', '__proto__', 'toString', 'hasOwnProperty'].flatMap((key) => (['top', 'input'] as const).map((where) =>
    [`a config override with a field named '${key}' (${where === 'top' ? 'top level' : 'inside an input'})`, 'served', { config: protoKeyed(key, where) },
      'INVALID_ARG', `${POLL('served')}Invalid config override:`] as [string, string, LoadParams, 'INVALID_ARG', string])),
];

async function inferServed(transport: 'http' | 'grpc'): Promise<number[]> {
  if (transport === 'http') {
    const r = await kit.http('POST', '/v2/models/served/infer', { inputs: [{ name: 'x', shape: [1, 4], datatype: 'FP32', data: [1, 2, 3, 4] }] });
    assert.equal(r.status, 200, r.text);
    return (JSON.parse(r.text) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data;
  }
  const res = await kit.grpc.call<{ raw_output_contents: Buffer[] }>('ModelInfer', {
    model_name: 'served', inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 4] }],
    raw_input_contents: [Buffer.from(Float32Array.from([1, 2, 3, 4]).buffer)],
  });
  const raw = res.raw_output_contents[0]!;
  return [...new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength))];
}

for (const transport of ['http', 'grpc'] as const) {
  for (const [what, model, params, kind, prefix] of CASES) {
    test(`${transport} load of ${what}: Triton's status and words; the loaded version keeps serving`, async () => {
      const r = await load(kit, transport, model, params);
      if (transport === 'http') assert.equal(r.status, kind === 'INTERNAL' ? 500 : 400, r.message);
      else assert.equal(r.status, kind === 'INTERNAL' ? status.INTERNAL : status.INVALID_ARGUMENT, r.message);
      assert.ok(r.message.startsWith(prefix), `expected the prefix ${JSON.stringify(prefix)}:\n${r.message}`);
      if (what.includes('named')) assert.match(r.message, /unknown field '(constructor|__proto__|toString|hasOwnProperty)'/);
      assert.ok(!r.message.includes(kit.tmp) && !r.message.includes(kit.repo), `a server path leaks: ${r.message}`);
      assert.equal(kit.server.modelReady('served'), true);
      assert.deepEqual(await inferServed(transport), [2, 3, 4, 5], 'the version loaded before still answers');
    });
  }
}

test('parameter keys named like Object.prototype members are entries like any other, over both transports', async () => {
  const keys = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
  const params = keys.map((k) => `"${k}":{"string_value":"v_${k}"}`).join(',');
  const config = addJson('served').replace(/^\{/, `{"parameters":{${params}},`);
  for (const transport of ['http', 'grpc'] as const) {
    const r = await load(kit, transport, 'served', { config, files: { '1/model.onnx': addConstModel(1) } });
    assert.equal(r.status, transport === 'http' ? 200 : status.OK, r.message);
    const got = await kit.http('GET', '/v2/models/served/config');
    assert.equal(got.status, 200, got.text);
    const text = JSON.parse(got.text) as { parameters: Record<string, { string_value: string }> };
    for (const k of keys) {
      assert.ok(Object.hasOwn(text.parameters, k), `${transport}: parameter '${k}' kept: ${got.text}`);
      assert.equal(text.parameters[k]!.string_value, `v_${k}`);
    }
    assert.deepEqual(await inferServed(transport), [2, 3, 4, 5]);
  }
});

test('a load that succeeds after the failures replaces the served version (the failures changed nothing)', async () => {
  const r = await load(kit, 'grpc', 'served', { config: addJson('served'), files: { '1/model.onnx': addConstModel(10) } });
  assert.equal(r.status, status.OK, r.message);
  assert.deepEqual(await inferServed('http'), [11, 12, 13, 14]);
});
