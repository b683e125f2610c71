import { test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { getLogSettings, updateLogSettings } from '../../../src/logger.js';
import { startHarness } from './harness.js';

test('health, metadata, config and statistics RPCs translate the Server API', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const c = h.client;

  assert.deepEqual(await c.call('ServerLive'), { live: true });
  assert.deepEqual(await c.call('ServerReady'), { ready: true });
  assert.deepEqual(await c.call('ModelReady', { name: 'echo' }), { ready: true });
  assert.deepEqual(await c.call('ModelReady', { name: 'nope' }), { ready: false });
  const meta = await c.call('ServerMetadata');
  assert.equal(meta.name, 'tributary');
  // One extension list for both front ends (src/dataplane/): shared memory only with a registry.
  assert.deepEqual(meta.extensions, ['statistics', 'generate']);

  const mm = await c.call('ModelMetadata', { name: 'echo' });
  assert.deepEqual(mm.inputs, [{ name: 'IN', datatype: 'INT32', shape: ['-1'] }]);
  assert.deepEqual(mm.versions, ['1']);

  const err = await c.call('ModelMetadata', { name: 'nope' }).catch((e) => e);
  assert.equal(err.code, status.NOT_FOUND);
  assert.match(err.details, /unknown model: 'nope'/);

  const { config } = await c.call('ModelConfig', { name: 'repeat' });
  assert.equal(config.name, 'repeat');
  assert.equal(config.model_transaction_policy.decoupled, true);
  assert.equal(config.input[0].data_type, 'TYPE_INT32');
  assert.deepEqual(config.input[0].dims, ['-1']);
  assert.equal(config.instance_group[0].kind, 'KIND_CPU');
  assert.equal(config.scheduling_choice, 'dynamic_batching');
  assert.deepEqual(config.dynamic_batching.preferred_batch_size, [4]);
  // protobufjs decodes 64-bit map keys as 8-char "long hash" strings (little-endian bytes).
  const [[key, policy]] = Object.entries(config.dynamic_batching.priority_queue_policy) as [[string, any]];
  assert.equal(Buffer.from(key!, 'latin1').readBigUInt64LE(), 1n);
  assert.equal(policy.timeout_action, 'DELAY');
  assert.equal(policy.max_queue_size, 3);
  assert.equal(config.version_policy.latest.num_versions, 1);
  assert.deepEqual(config.parameters, { p: { string_value: 'v' } });

  const stats = await c.call('ModelStatistics', { name: 'echo' });
  assert.equal(stats.model_stats.length, 1);
  assert.equal(stats.model_stats[0].inference_count, '7');
  assert.deepEqual(stats.model_stats[0].inference_stats.success, { count: '7', ns: '12345' });
  assert.equal(stats.model_stats[0].batch_stats[0].compute_output.ns, '30');
  assert.equal((await c.call('ModelStatistics', {})).model_stats.length, 4);
});

test('health check follows server readiness', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  assert.deepEqual(await h.client.call('Health.Check', { service: '' }), { status: 'SERVING' });
  h.fake.ready = false;
  assert.deepEqual(await h.client.call('Health.Check', { service: '' }), { status: 'NOT_SERVING' });
  assert.deepEqual(await h.client.call('ServerReady'), { ready: false });
});

test('repository index, load (config and file overrides) and unload', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const c = h.client;
  const all = await c.call('RepositoryIndex', {});
  assert.equal(all.models.length, 5);
  assert.deepEqual(all.models[4], { name: 'broken', version: '1', state: 'UNAVAILABLE', reason: 'bad config' });
  assert.equal((await c.call('RepositoryIndex', { ready: true })).models.length, 4);

  await c.call('RepositoryModelLoad', {
    model_name: 'm',
    parameters: { config: { string_param: '{"backend":"onnxruntime"}' }, 'file:1/model.onnx': { bytes_param: Buffer.from([1, 2, 3]) } },
  });
  assert.equal(h.fake.loads[0]!.name, 'm');
  assert.equal(h.fake.loads[0]!.options!.config, '{"backend":"onnxruntime"}');
  assert.deepEqual([...h.fake.loads[0]!.options!.files!['1/model.onnx']!], [1, 2, 3]);

  const bad = await c.call('RepositoryModelLoad', { model_name: 'm', parameters: { 'file:x': { bytes_param: Buffer.from([1]) } } }).catch((e) => e);
  assert.equal(bad.code, status.INVALID_ARGUMENT);
  assert.match(bad.details, /need a 'config' parameter/);

  const missing = await c.call('RepositoryModelLoad', { model_name: 'missing' }).catch((e) => e);
  assert.equal(missing.code, status.INVALID_ARGUMENT);
  assert.match(missing.details, /failed to load 'missing': no such directory/);

  await c.call('RepositoryModelUnload', { model_name: 'echo', parameters: { unload_dependents: { bool_param: true } } });
  assert.deepEqual(h.fake.unloads, [{ name: 'echo', options: { unloadDependents: true } }]);
});

test('CUDA shared memory with client shared memory off: status lists nothing, register and unregister say how to enable it', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  assert.deepEqual(await h.client.call('CudaSharedMemoryStatus', {}), { regions: {} });
  for (const [rpc, req] of [['CudaSharedMemoryUnregister', {}], ['CudaSharedMemoryUnregister', { name: 'x' }], ['CudaSharedMemoryRegister', { name: 'x' }]] as const) {
    const e = await h.client.call(rpc, req).catch((err) => err);
    assert.equal(e.code, status.UNIMPLEMENTED, rpc);
    assert.match(e.details, /^Client shared memory is disabled/);
  }
});

test('trace settings: read, update globally and per model, validate', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const c = h.client;
  const get = async (req: object) => {
    const r = await c.call('TraceSetting', req);
    return Object.fromEntries(Object.entries(r.settings).map(([k, v]: [string, any]) => [k, v.value]));
  };
  const initial = await get({});
  assert.deepEqual(initial.trace_level, ['OFF']);
  assert.deepEqual(initial.trace_rate, ['1000']);
  const upd = await get({ settings: { trace_level: { value: ['TIMESTAMPS', 'TENSORS'] }, trace_rate: { value: ['5'] } } });
  assert.deepEqual(upd.trace_level, ['TIMESTAMPS', 'TENSORS']);
  const model = await get({ model_name: 'echo', settings: { trace_rate: { value: ['7'] } } });
  assert.deepEqual(model.trace_rate, ['7']);
  assert.deepEqual(model.trace_level, ['TIMESTAMPS', 'TENSORS']);
  assert.deepEqual((await get({})).trace_rate, ['5']);
  assert.deepEqual((await get({ model_name: 'echo', settings: { trace_rate: { value: [] } } })).trace_rate, ['5']);
  const bad = await c.call('TraceSetting', { settings: { trace_level: { value: ['LOUD'] } } }).catch((e) => e);
  assert.equal(bad.code, status.INVALID_ARGUMENT);
  assert.match(bad.details, /trace_level "LOUD" must be OFF, TIMESTAMPS or TENSORS/);
  // One set of rules with HTTP: OFF stands alone (as in Triton), trace_mode may be set.
  const mixed = await c.call('TraceSetting', { settings: { trace_level: { value: ['OFF', 'TENSORS'] } } }).catch((e) => e);
  assert.equal(mixed.code, status.INVALID_ARGUMENT);
  assert.match(mixed.details, /OFF cannot be combined/);
  assert.deepEqual((await get({ settings: { trace_mode: { value: ['opentelemetry'] } } })).trace_mode, ['opentelemetry']);
});

test('log settings: read and update through the logger', async (t) => {
  const h = await startHarness();
  const before = getLogSettings();
  t.after(async () => { updateLogSettings(before); await h.close(); });
  const r = await h.client.call('LogSettings', { settings: { log_verbose_level: { uint32_param: 2 }, log_info: { bool_param: false } } });
  assert.equal(r.settings.log_verbose_level.uint32_param, 2);
  assert.equal(r.settings.log_info.bool_param, false);
  assert.equal(getLogSettings().log_verbose_level, 2);
  const bad = await h.client.call('LogSettings', { settings: { log_format: { string_param: 'xml' } } }).catch((e) => e);
  assert.equal(bad.code, status.INVALID_ARGUMENT);
  const file = await h.client.call('LogSettings', { settings: { log_file: { string_param: '/tmp/x.log' } } }).catch((e) => e);
  assert.equal(file.code, status.UNIMPLEMENTED);
});
