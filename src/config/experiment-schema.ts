/**
 * The `experiment:` block of a model config as schema, so the one converter checks it (unknown
 * keys get a "did you mean", every value keeps its position for file:line:col). It is beyond
 * Triton's ModelConfig: YAML and JSON configs take it, config.pbtxt refuses it (`pbtxtRefused`).
 */
import type { FieldSchema, MessageSchema, ScalarKind } from './config-schema.js';

const f = (kind: ScalarKind): FieldSchema => ({ type: { kind } });
const m = (message: MessageSchema): FieldSchema => ({ type: { kind: 'message', message } });

const VARIANT: MessageSchema = {
  name: 'Experiment.Variant', label: 'experiment variant',
  fields: { model: f('string'), version: f('string'), weight: f('double') },
};
const STICKY: MessageSchema = {
  name: 'Experiment.Sticky', label: 'experiment sticky', fields: { header: f('string'), parameter: f('string') },
};
const MIRROR: MessageSchema = {
  name: 'Experiment.Mirror', label: 'experiment mirror',
  fields: { model: f('string'), version: f('string'), percent: f('double'), max_inflight_requests: f('uint32') },
};
const EXPERIMENT: MessageSchema = {
  name: 'Experiment', label: 'experiment',
  fields: { variants: { ...m(VARIANT), repeated: true }, sticky: m(STICKY), mirror: m(MIRROR) },
};

/** ModelConfig's `experiment` field. */
export const EXPERIMENT_FIELD: FieldSchema = { ...m(EXPERIMENT), pbtxtRefused: 'a Tributary experiment' };
