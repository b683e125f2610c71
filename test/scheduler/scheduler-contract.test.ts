import { configured, schedulerContract, type ItemOptions } from './scheduler-contract.js';
import { TestItem } from './helpers.js';

const plain = (label: string, _i: number, o: ItemOptions) => new TestItem(label, o);

schedulerContract('default scheduler', { create: configured({}), itemFor: plain });
schedulerContract('dynamic batcher', {
  create: configured({
    dynamic_batching: { preferred_batch_size: [], max_queue_delay_microseconds: 0, preserve_ordering: true, priority_levels: 0, default_priority_level: 0, priority_queue_policy: {} },
  }),
  itemFor: plain,
});
// One sequence: its requests run one at a time, in order, like the others' single instance.
schedulerContract('sequence batcher (direct)', {
  create: configured({ sequence_batching: { max_sequence_idle_microseconds: 0, control_input: [], state: [] } }),
  itemFor: (label, i, o) => new TestItem(label, { ...o, sequence: { id: 1n, start: i === 0, end: false } }),
});
schedulerContract('sequence batcher (oldest)', {
  create: configured({
    sequence_batching: { oldest: { max_candidate_sequences: 2, preferred_batch_size: [], max_queue_delay_microseconds: 0, preserve_ordering: false }, max_sequence_idle_microseconds: 0, control_input: [], state: [] },
  }),
  itemFor: (label, i, o) => new TestItem(label, { ...o, sequence: { id: `s${i}`, start: true, end: true } }),
});
