import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeConfig, parseConfigText, positionOf, deepFreeze, formatProblems } from '../../src/config/index.js';

test('a minimal config gets Triton defaults for every field', () => {
  const c = normalizeConfig({}, { name: 'tiny' });
  assert.equal(c.name, 'tiny');
  assert.equal(c.max_batch_size, 0);
  assert.deepEqual(c.version_policy, { latest: { num_versions: 1 } });
  // The count waits for the backend (Triton's SetDefaultInstanceCount): see instance-counts.test.ts.
  assert.deepEqual(c.instance_group, [{ name: 'tiny', kind: 'KIND_CPU', gpus: [], secondary_devices: [], profile: [], passive: false, host_policy: '' }]);
  assert.deepEqual(c.model_transaction_policy, { decoupled: false });
  assert.deepEqual([c.input, c.output, c.batch_input, c.batch_output, c.model_warmup], [[], [], [], [], []]);
  assert.deepEqual([c.parameters, c.metric_tags, c.cc_model_filenames], [{}, {}, {}]);
  assert.deepEqual(c.optimization?.input_pinned_memory, { enable: true });
  assert.equal(c.dynamic_batching, undefined);
});

test('scheduler sub-defaults follow Triton: preferred size = max_batch_size, idle 1 s, queue policy', () => {
  const d = normalizeConfig({ name: 'b', max_batch_size: 8, dynamic_batching: {} } as object);
  assert.deepEqual(d.dynamic_batching, {
    preferred_batch_size: [8], max_queue_delay_microseconds: 0, preserve_ordering: false, priority_levels: 0, default_priority_level: 0,
    default_queue_policy: { timeout_action: 'REJECT', default_timeout_microseconds: 0, allow_timeout_override: false, max_queue_size: 0 },
    priority_queue_policy: {},
  });
  const s = normalizeConfig({ name: 's', max_batch_size: 2, sequence_batching: { oldest: {} } } as object);
  assert.equal(s.sequence_batching!.max_sequence_idle_microseconds, 1_000_000);
  assert.deepEqual(s.sequence_batching!.oldest!.preferred_batch_size, [2]);
});

test('ensembles get no instance group or optimization; steps default to the latest version', () => {
  const c = normalizeConfig({ name: 'e', platform: 'ensemble', ensemble_scheduling: { step: [{ model_name: 'a' }] } } as object);
  assert.deepEqual(c.instance_group, []);
  assert.equal(c.optimization, undefined);
  assert.deepEqual(c.ensemble_scheduling!.step, [{ model_name: 'a', model_version: -1, input_map: {}, output_map: {} }]);
});

test('explicit values survive; the input is not mutated; KIND_AUTO resolves to CPU', () => {
  const input = { name: 'n', instance_group: [{ count: 0, kind: 'KIND_AUTO' }], version_policy: { latest: { num_versions: 0 } } };
  const copy = structuredClone(input);
  const c = normalizeConfig(input);
  assert.deepEqual(input, copy);
  assert.equal(c.instance_group[0]!.count, 0, 'validation, not normalisation, rejects count 0');
  assert.equal(c.instance_group[0]!.kind, 'KIND_CPU');
  assert.equal(c.version_policy.latest!.num_versions, 0);
});

test('the config name falls back to the directory name', () => {
  assert.equal(parseConfigText('max_batch_size: 1', 'x/config.pbtxt', 'pbtxt', { name: 'x' }).config.name, 'x');
  assert.equal(parseConfigText('name: "y"', 'x/config.pbtxt', 'pbtxt', { name: 'x' }).config.name, 'y');
});

test('positionOf falls back to the nearest recorded parent, then 1:1', () => {
  const p = parseConfigText('name: "m"\n\ninput { name: "a" }\n', 'f.pbtxt', 'pbtxt');
  assert.deepEqual(positionOf(p, 'input[0].name'), { file: 'f.pbtxt', line: 3, col: 9 });
  assert.deepEqual(positionOf(p, 'input[0].dims[3]'), { file: 'f.pbtxt', line: 3, col: 1 });
  assert.deepEqual(positionOf(p, 'parameters.x.y'), { file: 'f.pbtxt', line: 1, col: 1 });
});

test('formatProblems prints file:line:col: severity: message lines', () => {
  assert.equal(formatProblems([
    { file: 'a', line: 2, col: 3, path: 'x', message: 'bad', severity: 'error' },
    { file: 'a', line: 4, col: 1, path: 'y', message: 'meh', severity: 'warning' },
  ]), 'a:2:3: error: bad\na:4:1: warning: meh');
});

test('deepFreeze freezes nested objects and arrays', () => {
  const c = deepFreeze(parseConfigText('name: "m" input { name: "a" dims: [1] }', 'f', 'pbtxt').config);
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.input) && Object.isFrozen(c.input[0]!.dims));
  assert.throws(() => { (c.input[0]!.dims as number[]).push(2); }, TypeError);
});
