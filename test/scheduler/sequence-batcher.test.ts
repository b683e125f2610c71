import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackendRequest } from '../../src/backend/index.js';
import type { SequenceFlags } from '../../src/inference/index.js';
import type { ModelSequenceBatching, SequenceControlInput } from '../../src/config/index.js';
import { ManualClock, createScheduler } from '../../src/scheduler/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';
import { TestInstance, TestItem, flush, modelConfig } from './helpers.js';

function setup(o: { sb?: Partial<ModelSequenceBatching>; maxBatch?: number; instances?: number; initialState?: Record<string, Uint8Array>; outputs?: string[] } = {}) {
  const clock = new ManualClock();
  const instances = Array.from({ length: o.instances ?? 1 }, (_, i) => new TestInstance(i));
  const config = modelConfig({
    max_batch_size: o.maxBatch ?? 2,
    sequence_batching: { max_sequence_idle_microseconds: 0, control_input: [], state: [], ...o.sb },
    ...(o.outputs ? { output: o.outputs.map((name) => ({ name, data_type: 'TYPE_FP32' as const, dims: [1] })) } : {}),
  });
  const s = createScheduler(config, instances, { model: 'm', clock, ...(o.initialState ? { initialState: o.initialState } : {}) });
  const send = (label: string, id: bigint | string, flags: Partial<SequenceFlags> = {}, value = 0) => {
    const it = new TestItem(label, { now: clock.now(), value, sequence: { id, start: flags.start ?? false, end: flags.end ?? false } });
    s.enqueue(it);
    return it;
  };
  return { clock, instances, inst: instances[0]!, s, send };
}

const input = (r: BackendRequest, name: string): Tensor | undefined => r.request.inputs.find((t) => t.name === name);
const value = (t: Tensor | undefined): unknown => (t ? Array.from(t.data as ArrayLike<unknown>)[0] : undefined);

test('requests need a correlation ID, and a new sequence needs START', async () => {
  const { send, s } = setup();
  const noId = new TestItem('x', {});
  s.enqueue(noId);
  assert.equal(noId.errorCode, 'TRB_SEQUENCE_MISSING_ID');
  assert.equal(send('zero', 0n, { start: true }).errorCode, 'TRB_SEQUENCE_MISSING_ID');
  assert.equal(send('empty', '', { start: true }).errorCode, 'TRB_SEQUENCE_MISSING_ID');
  const unknown = send('u', 7n);
  assert.equal(unknown.errorCode, 'TRB_SEQUENCE_UNKNOWN');
  assert.match((unknown.events[0] as { error: Error }).error.message, /^inference request for sequence 7 to model '[^']+' must specify the START flag on the first request of the sequence$/);
  send('a1', 8n, { start: true, end: true });
  assert.equal(send('a2', 8n).errorCode, 'TRB_SEQUENCE_UNKNOWN', 'after END only a START may follow');
});

test('direct: sequences own a slot; one request per sequence per batch; order within a sequence kept', async () => {
  const { inst, send } = setup({ maxBatch: 2 });
  send('A1', 1n, { start: true }); send('B1', 2n, { start: true });
  await flush();
  send('A2', 1n); send('A3', 1n); send('B2', 2n);
  await flush();
  assert.deepEqual(inst.labels, [['A1', 'B1']]);
  await inst.complete();
  await inst.complete();
  await inst.complete();
  assert.deepEqual(inst.labels, [['A1', 'B1'], ['A2', 'B2'], ['A3']]);
});

test('direct: a sequence without a free slot waits in the backlog and takes the slot freed by END', async () => {
  const { inst, send, s } = setup({ maxBatch: 1 });
  send('A1', 'a', { start: true });
  send('B1', 'b', { start: true });
  await flush();
  send('B2', 'b', { end: true });
  send('A2', 'a', { end: true });
  await flush();
  await inst.complete();
  assert.deepEqual(inst.labels, [['A1'], ['A2']], 'B waits although its requests arrived first');
  await inst.complete();
  await inst.complete();
  assert.deepEqual(inst.labels, [['A1'], ['A2'], ['B1'], ['B2']]);
  await inst.complete();
  assert.deepEqual(s.sequenceStats!(), { active: 0, started: 2, ended: 2, released_idle: 0 });
});

test('direct with 2 instances: sequences spread over instances and run concurrently', async () => {
  const { instances, send } = setup({ maxBatch: 2, instances: 2 });
  send('A1', 1n, { start: true }); send('B1', 2n, { start: true }); send('C1', 3n, { start: true });
  await flush();
  assert.deepEqual(instances.map((i) => i.labels), [[['A1', 'C1']], [['B1']]]);
});

test('direct minimum_slot_utilization: waits up to the delay for enough ready slots', async () => {
  const { inst, send, clock } = setup({ maxBatch: 2, sb: { direct: { max_queue_delay_microseconds: 1000, minimum_slot_utilization: 1 } } });
  send('A1', 1n, { start: true });
  await flush();
  assert.equal(inst.batches.length, 0);
  clock.advance(0.5);
  send('B1', 2n, { start: true });
  await flush();
  assert.deepEqual(inst.labels, [['A1', 'B1']], 'both slots ready: runs before the delay');
  await inst.complete();
  send('A2', 1n);
  await flush();
  assert.equal(inst.batches.length, 1);
  clock.advance(1);
  await flush();
  assert.deepEqual(inst.labels[1], ['A2']);
});

test('max_sequence_idle_microseconds releases an abandoned sequence; later requests fail clearly', async () => {
  const { inst, send, clock, s } = setup({ maxBatch: 1, sb: { max_sequence_idle_microseconds: 1000 } });
  send('A1', 1n, { start: true });
  send('B1', 2n, { start: true });
  await flush();
  clock.advance(5);
  assert.equal(s.sequenceStats!().active, 2, 'a running or queued sequence is not idle');
  await inst.complete();
  clock.advance(0.999);
  assert.equal(s.sequenceStats!().released_idle, 0);
  clock.advance(0.001);
  assert.equal(s.sequenceStats!().released_idle, 1);
  await flush();
  assert.deepEqual(inst.labels, [['A1'], ['B1']], 'the released slot went to the backlog');
  const late = send('A2', 1n);
  assert.equal(late.errorCode, 'TRB_SEQUENCE_IDLE_RELEASED');
  assert.match((late.events[0] as { error: Error }).error.message, /idle for more than 1000 microseconds/);
  assert.equal(send('A1b', 1n, { start: true }).errorCode, undefined, 'a new START is accepted');
});

test('control inputs: START/END/READY in int32, fp32 and bool forms; CORRID as UINT64, INT32 and STRING', async () => {
  const control = (name: string, c: SequenceControlInput['control'][0]): SequenceControlInput => ({ name, control: [c] });
  const { inst, send } = setup({
    maxBatch: 4,
    sb: {
      control_input: [
        control('START', { kind: 'CONTROL_SEQUENCE_START', int32_false_true: [0, 1] }),
        control('END', { kind: 'CONTROL_SEQUENCE_END', fp32_false_true: [-1, 2.5] }),
        control('READY', { kind: 'CONTROL_SEQUENCE_READY', bool_false_true: [false, true] }),
        control('CORRID', { kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_UINT64' }),
        control('CORRID32', { kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_INT32' }),
      ],
    },
  });
  send('A1', 42n, { start: true }); send('B1', 7n, { start: true, end: true });
  await flush();
  send('A2', 42n, { end: true });
  await flush();
  await inst.complete();
  const [a1, b1] = inst.batches[0]!;
  const [a2] = inst.batches[1]!;
  assert.deepEqual([a1, b1, a2].map((r) => [value(input(r!, 'START')), value(input(r!, 'END')), value(input(r!, 'READY')), value(input(r!, 'CORRID')), value(input(r!, 'CORRID32'))]),
    [[1, -1, 1, 42n, 42], [1, 2.5, 1, 7n, 7], [0, 2.5, 1, 42n, 42]]);
  assert.deepEqual(input(a1!, 'START')!.shape, [1, 1]);
  assert.deepEqual([input(a1!, 'START')!.datatype, input(a1!, 'END')!.datatype, input(a1!, 'READY')!.datatype, input(a1!, 'CORRID')!.datatype], ['INT32', 'FP32', 'BOOL', 'UINT64']);
  const { inst: i2, send: s2 } = setup({ sb: { control_input: [control('CORRID', { kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_STRING' })] } });
  s2('S', 'session-9', { start: true });
  await flush();
  assert.deepEqual(new TextDecoder().decode((input(i2.batches[0]![0]!, 'CORRID')!.data as Uint8Array[])[0]), 'session-9');
  const { inst: i3, send: s3 } = setup({ sb: { control_input: [control('CORRID', { kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_INT32' })] } });
  const big = s3('big', 2n ** 40n, { start: true });
  await flush();
  assert.equal(big.errorCode, 'TRB_SEQUENCE_CORRID');
  assert.equal(i3.batches.length, 0);
  // Triton's type check: a string ID to a numeric control, an integer ID to a string one.
  const { send: s4 } = setup({ sb: { control_input: [control('CORRID', { kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_INT32' })] } });
  const named = s4('named', 'session-1', { start: true });
  const { send: s5 } = setup({ sb: { control_input: [control('CORRID', { kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_STRING' })] } });
  const numbered = s5('numbered', 5n, { start: true });
  await flush();
  assert.equal(named.errorCode, 'TRB_SEQUENCE_CORRID_TYPE');
  assert.match((named.events[0] as { error: Error }).error.message, /^sequence batching control 'CORRID' data-type is 'BYTES', but model '[^']+' expects 'INT32'/);
  assert.equal(numbered.errorCode, 'TRB_SEQUENCE_CORRID_TYPE');
  assert.match((numbered.events[0] as { error: Error }).error.message, /^sequence batching control 'CORRID' data-type is 'UINT64', but model '[^']+' expects 'BYTES'/);
});

test('control input configs are checked at load, every problem reported', () => {
  assert.throws(() => setup({
    sb: {
      control_input: [
        { name: 'S', control: [{ kind: 'CONTROL_SEQUENCE_START' }] },
        { name: 'C', control: [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_FP32' }] },
      ],
    },
  }), (e: Error & { code?: string }) => e.code === 'TRB_CONFIG_INVALID' && /control_input 'S'/.test(e.message) && /control_input 'C'/.test(e.message));
});

/** Accumulator: OUT = IN + STATE_IN, OUT_STATE = OUT. */
function accumulate(r: BackendRequest): Tensor[] {
  const x = (r.request.inputs.find((t) => t.name === 'IN')!.data as Float32Array)[0]!;
  const st = r.request.inputs.find((t) => t.name === 'STATE_IN');
  const sum = x + (st ? (st.data as Float32Array)[0]! : NaN);
  return [createTensor('OUT', 'FP32', [1, 1], [sum]), createTensor('OUT_STATE', 'FP32', [1, 1], [sum])];
}

const stateSb = (initial?: ModelSequenceBatching['state'][0]['initial_state']): Partial<ModelSequenceBatching> => ({
  state: [{ input_name: 'STATE_IN', output_name: 'OUT_STATE', data_type: 'TYPE_FP32', dims: [-1], initial_state: initial ?? [] }],
});

const outValue = (it: TestItem): number[] =>
  it.events.flatMap((e) => (e.kind === 'response' ? e.outputs.filter((t) => t.name === 'OUT').map((t) => (t.data as Float32Array)[0]!) : []));

test('implicit state: fed as an input, stored from the output, hidden from the client, reset at START', async () => {
  const { inst, send } = setup({ maxBatch: 2, sb: stateSb() });
  inst.respond = accumulate;
  const a1 = send('A1', 1n, { start: true }, 1);
  const b1 = send('B1', 2n, { start: true }, 100);
  await flush();
  assert.deepEqual(input(inst.batches[0]![0]!, 'STATE_IN')!.shape, [1, 1], 'variable dims start at 1');
  const a2 = send('A2', 1n, {}, 2);
  const a3 = send('A3', 1n, {}, 3);
  const b2 = send('B2', 2n, { end: true }, 5);
  await flush();
  for (let i = 0; i < 3; i++) await inst.complete();
  assert.deepEqual([outValue(a1), outValue(a2), outValue(a3), outValue(b1), outValue(b2)], [[1], [3], [6], [100], [105]]);
  const names = a2.events[0]!.kind === 'response' ? a2.events[0]!.outputs.map((t) => t.name) : [];
  assert.deepEqual(names, ['OUT'], 'the state output is not in the config outputs, so the client does not get it');
  const again = send('A4', 1n, { start: true }, 10);
  await flush();
  await inst.complete();
  assert.deepEqual(outValue(again), [10], 'START resets the state');
});

test('implicit state: an output state listed in the config reaches the client; requested outputs get the state output added for the backend', async () => {
  const { inst, send, s } = setup({ sb: stateSb(), outputs: ['OUT', 'OUT_STATE'] });
  inst.respond = accumulate;
  const a1 = send('A1', 1n, { start: true }, 4);
  await flush();
  await inst.complete();
  assert.deepEqual(a1.events[0]!.kind === 'response' && a1.events[0]!.outputs.map((t) => t.name), ['OUT', 'OUT_STATE']);
  const a2 = new TestItem('A2', { sequence: { id: 1n, start: false, end: false }, value: 1 });
  (a2.request as { outputs?: { name: string }[] }).outputs = [{ name: 'OUT' }];
  s.enqueue(a2);
  await flush();
  assert.deepEqual(inst.batches[1]![0]!.request.outputs!.map((o) => o.name), ['OUT', 'OUT_STATE'], 'the backend is asked for the state output');
  assert.deepEqual(a2.request.outputs!.map((o) => o.name), ['OUT'], 'the client request is left as it was');
  await inst.complete();
  assert.deepEqual(outValue(a2), [5]);
});

test('implicit state: initial_state zero_data and data_file (bytes handed in by the caller)', async () => {
  const bytes = new Uint8Array(new Float32Array([10]).buffer);
  const { inst, send } = setup({ sb: stateSb([{ name: 'init', data_type: 'TYPE_FP32', dims: [1], data_file: 'init.bin' }]), initialState: { 'init.bin': bytes } });
  inst.respond = accumulate;
  const a1 = send('A1', 1n, { start: true }, 1);
  await flush();
  await inst.complete();
  assert.deepEqual(outValue(a1), [11]);
  const z = setup({ sb: stateSb([{ name: 'init', data_type: 'TYPE_FP32', dims: [1], zero_data: true }]) });
  z.inst.respond = accumulate;
  const b1 = z.send('B1', 1n, { start: true }, 3);
  await flush();
  await z.inst.complete();
  assert.deepEqual(outValue(b1), [3]);
  assert.throws(() => setup({ sb: stateSb([{ name: 'init', data_type: 'TYPE_FP32', dims: [1], data_file: 'missing.bin' }]) }),
    (e: Error & { code?: string }) => e.code === 'TRB_CONFIG_INVALID' && /missing\.bin/.test(e.message));
});

test('oldest: dynamic batches of candidate sequences, oldest first, at most one request per sequence', async () => {
  const { inst, send } = setup({ maxBatch: 2, sb: { oldest: { max_candidate_sequences: 4, preferred_batch_size: [2], max_queue_delay_microseconds: 0, preserve_ordering: false } } });
  send('A1', 1n, { start: true }); send('A2', 1n); send('B1', 2n, { start: true }); send('C1', 3n, { start: true });
  send('B2', 2n); send('C2', 3n);
  await flush();
  for (let i = 0; i < 3; i++) await inst.complete();
  assert.deepEqual(inst.labels, [['A1', 'B1'], ['A2', 'C1'], ['B2', 'C2']]);
});

test('oldest: max_candidate_sequences bounds the sequences batched; the others wait in the backlog', async () => {
  const { inst, send } = setup({ maxBatch: 4, sb: { oldest: { max_candidate_sequences: 2, preferred_batch_size: [], max_queue_delay_microseconds: 0, preserve_ordering: false } } });
  send('A1', 1n, { start: true, end: true }); send('B1', 2n, { start: true }); send('C1', 3n, { start: true });
  await flush();
  assert.deepEqual(inst.labels, [['A1', 'B1']]);
  await inst.complete();
  assert.deepEqual(inst.labels[1], ['C1'], 'C took the place A freed');
});

test('queued sequence requests time out and cancel at once; stop() fails the rest', async () => {
  const { inst, send, clock, s } = setup({ maxBatch: 1 });
  send('A1', 1n, { start: true });
  await flush();
  const a2 = new TestItem('A2', { sequence: { id: 1n, start: false, end: false }, deadline: 2 });
  s.enqueue(a2);
  const a3 = send('A3', 1n);
  const a4 = send('A4', 1n);
  clock.advance(2);
  assert.equal(a2.errorCode, 'TRB_TIMEOUT');
  a3.abort.abort();
  assert.equal(a3.errorCode, 'TRB_CANCELLED');
  const stopping = s.stop();
  assert.equal(a4.errorCode, 'TRB_MODEL_UNLOADING');
  await inst.complete();
  await stopping;
  assert.equal(s.inflightCount(), 0);
});

test('oldest preserve_ordering: responses leave in dispatch order across instances', async () => {
  const { instances, send } = setup({ maxBatch: 1, instances: 2, sb: { oldest: { max_candidate_sequences: 1, preferred_batch_size: [], max_queue_delay_microseconds: 0, preserve_ordering: true } } });
  const log: string[] = [];
  const a = send('A1', 1n, { start: true });
  const b = send('B1', 2n, { start: true });
  await flush();
  assert.deepEqual(instances.map((i) => i.labels), [[['A1']], [['B1']]]);
  await instances[1]!.complete();
  log.push(`b:${b.responded}`);
  await instances[0]!.complete();
  log.push(`a:${a.responded}`, `b:${b.responded}`);
  assert.deepEqual(log, ['b:false', 'a:true', 'b:true']);
});
