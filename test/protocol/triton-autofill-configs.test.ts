/**
 * The served config of auto-completed models, as it travels on the gRPC wire, against Triton's
 * expected configs (server qa/L0_model_config/autofill_noplatform_success): Triton's test
 * compares the ModelConfig message for equality, so every message field set on the wire counts,
 * while a proto3 scalar at its default does not. The four ensembles are Triton's own cases; the
 * ONNX model without a config is ours, held to the fields Triton's expected ONNX configs set.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { Client, credentials } from '@grpc/grpc-js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { setLogSink } from '../../src/logger.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const PROTO_DIR = fileURLToPath(new URL('../../src/protocol/grpc/', import.meta.url));
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => PROTO_DIR + target;
root.loadSync('grpc_service.proto', { keepCase: true });
const Request = root.lookupType('inference.ModelConfigRequest');
const Response = root.lookupType('inference.ModelConfigResponse');

const io = (kind: 'input' | 'output', name: string, dims: string) => `${kind} [ { name: "${name}" data_type: TYPE_FP32 dims: [ ${dims} ] } ]`;
const identity = (name: string, mbs: number, dims: string, inputs = ['INPUT0'], outputs = ['OUTPUT0']) => [
  `name: "${name}"`, `max_batch_size: ${mbs}`, 'backend: "identity"',
  `input [ ${inputs.map((n) => `{ name: "${n}" data_type: TYPE_FP32 dims: [ ${dims} ] }`).join(', ')} ]`,
  `output [ ${outputs.map((n) => `{ name: "${n}" data_type: TYPE_FP32 dims: [ ${dims} ] }`).join(', ')} ]`,
  'instance_group [ { kind: KIND_CPU } ]', '',
].join('\n');
type Step = [model: string, inputs: Record<string, string>, outputs: Record<string, string>];
const mapText = (kind: string, m: Record<string, string>) => Object.entries(m).map(([k, v]) => `${kind} { key: "${k}" value: "${v}" }`).join(' ');
const ensemble = (name: string, mbs: number, dims: string, steps: Step[]) => [
  `name: "${name}"`, `max_batch_size: ${mbs}`, 'platform: "ensemble"',
  `ensemble_scheduling { step [ ${steps.map(([m, i, o]) => `{ model_name: "${m}" model_version: -1 ${mapText('input_map', i)} ${mapText('output_map', o)} }`).join(', ')} ] }`,
  io('input', 'data', dims), io('output', 'prob', dims), '',
].join('\n');

/** Triton's four cases: [ensemble, max_batch_size, dims, steps]. */
const ENSEMBLES: [string, number, string, Step[]][] = [
  ['embedded_ensemble', 2, '16', [['inner_ensemble', { data: 'data' }, { prob: 'prob' }]]],
  ['inconsistent_shape', 2, '16', [['fp32_dim1_batch4', { INPUT0: 'data' }, { OUTPUT0: 'temp_tensor' }], ['fp32_dim2_nobatch', { INPUT0: 'temp_tensor' }, { OUTPUT0: 'prob' }]]],
  ['inconsistent_shape_2', 0, '4, 16', [['fp32_dim2_nobatch', { INPUT0: 'data' }, { OUTPUT0: 'temp_tensor' }], ['fp32_dim1_batch4', { INPUT0: 'temp_tensor' }, { OUTPUT0: 'prob' }]]],
  ['unmapped_output', 2, '16', [['fp32_dim1_batch4_output3', { INPUT0: 'data', INPUT1: 'data', INPUT2: 'data' }, { OUTPUT0: 'prob' }]]],
];

let repo: TempRepo;
let server: LocalServer;
let grpc: GrpcServerHandle;
let client: Client;

before(async () => {
  setLogSink(() => {});
  const files: Record<string, string> = {
    'fp32_dim1_batch4/config.pbtxt': identity('fp32_dim1_batch4', 4, '16'),
    'fp32_dim2_nobatch/config.pbtxt': identity('fp32_dim2_nobatch', 0, '-1, 16'),
    'fp32_dim1_batch4_output3/config.pbtxt': identity('fp32_dim1_batch4_output3', 4, '16', ['INPUT0', 'INPUT1', 'INPUT2'], ['OUTPUT0', 'OUTPUT1', 'OUTPUT2']),
    'inner_ensemble/config.pbtxt': ensemble('inner_ensemble', 2, '16', [['fp32_dim1_batch4', { INPUT0: 'data' }, { OUTPUT0: 'prob' }]]),
  };
  for (const [name, mbs, dims, steps] of ENSEMBLES) files[`${name}/config.pbtxt`] = ensemble(name, mbs, dims, steps);
  for (const name of Object.keys(files)) files[`${name.split('/')[0]}/1/.keep`] = '';
  repo = tempRepo(files);
  repo.onnx('plain_onnx', 'simple.onnx'); // no config: INT32 [-1, 16] in and out, batchable
  server = await createServer({ modelRepository: repo.dir });
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
  client = new Client(`127.0.0.1:${grpc.port}`, credentials.createInsecure());
});
after(async () => {
  client.close();
  await grpc.close();
  await server.close();
  repo.remove();
});

/**
 * What proto3 equality sees: set message fields (even empty), and scalars (enums as numbers) that
 * are not at their default.
 */
function proto3(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(proto3);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = proto3(x);
    if (y === false || y === '' || y === 0 || y === '0' || (Array.isArray(y) && y.length === 0)) continue;
    out[k] = y;
  }
  return out;
}

/** The ModelConfig as it is on the wire (decoded without filling in defaults). */
async function wireConfig(model: string): Promise<Record<string, unknown>> {
  const raw = await new Promise<Buffer>((resolve, reject) => {
    client.makeUnaryRequest('/inference.GRPCInferenceService/ModelConfig',
      (m: object) => Buffer.from(Request.encode(Request.fromObject(m)).finish()), (b: Buffer) => b, { name: model },
      (e, r) => (e ? reject(e) : resolve(r!)));
  });
  const decoded = Response.toObject(Response.decode(raw), { longs: String, enums: Number, defaults: false }) as { config: Record<string, unknown> };
  return proto3(decoded.config) as Record<string, unknown>;
}

const TYPE_FP32 = 11;
const KIND_CPU = 2;
const tensor = (name: string, dims: string) => ({ name, data_type: TYPE_FP32, dims: dims.split(', ') });

for (const [name, mbs, dims, steps] of ENSEMBLES) {
  test(`ensemble '${name}': the served config equals Triton's expected auto-completed config`, async () => {
    // Triton's expected file: the config as written, plus the default version policy and the
    // (here not decoupled) transaction policy its ensemble validation sets.
    assert.deepEqual(await wireConfig(name), {
      name, platform: 'ensemble', ...(mbs ? { max_batch_size: mbs } : {}),
      version_policy: { latest: { num_versions: 1 } },
      ensemble_scheduling: { step: steps.map(([m, i, o]) => ({ model_name: m, model_version: '-1', input_map: i, output_map: o })) },
      input: [tensor('data', dims)], output: [tensor('prob', dims)],
      model_transaction_policy: {},
    });
  });
}

test('an ONNX model without a config: the message fields Triton\'s expected ONNX configs set, and no others', async () => {
  const c = await wireConfig('plain_onnx');
  assert.deepEqual(Object.keys(c).sort(), [
    'backend', 'default_model_filename', 'dynamic_batching', 'input', 'instance_group', 'max_batch_size', 'name',
    'optimization', 'output', 'platform', 'version_policy',
  ]);
  assert.deepEqual(c.dynamic_batching, { preferred_batch_size: [4] }, 'no default queue policy on the wire');
  assert.deepEqual(c.optimization, { input_pinned_memory: { enable: true }, output_pinned_memory: { enable: true } });
  assert.deepEqual(c.version_policy, { latest: { num_versions: 1 } });
  assert.deepEqual(c.instance_group, [{ name: 'plain_onnx', count: 2, kind: KIND_CPU }]);
});
