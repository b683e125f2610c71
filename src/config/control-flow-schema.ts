/**
 * The YAML-only keys of a pipeline step (`when`, `switch`, `return`, `map`, `loop`) as schema, so
 * the one converter checks them (unknown keys get a "did you mean", every value keeps its
 * position) and nested `steps:` lists are steps again. Marked `yamlOnly`: pbtxt and JSON configs
 * keep Triton's ModelEnsembling.Step, and the converter refuses these keys there.
 */
import type { FieldSchema, MessageSchema, ScalarKind } from './config-schema.js';

const f = (kind: ScalarKind): FieldSchema => ({ type: { kind } });
const list = (x: FieldSchema): FieldSchema => ({ ...x, repeated: true });
const m = (message: MessageSchema): FieldSchema => ({ type: { kind: 'message', message } });
const names = (): FieldSchema => ({ type: { kind: 'string' }, mapKey: 'string' });
const yaml = (x: FieldSchema): FieldSchema => ({ ...x, yamlOnly: true });

/** The step fields that make a step a construct; `step` is the step message itself (recursion). */
export function controlFlowFields(step: MessageSchema): Record<string, FieldSchema> {
  const steps = list(m(step));
  const CASE: MessageSchema = { name: 'Pipeline.Case', label: 'switch case', fields: { when: f('string'), steps } };
  const SWITCH: MessageSchema = { name: 'Pipeline.Switch', label: 'switch', fields: { name: f('string'), cases: list(m(CASE)), default: steps } };
  // `NAME: tensor` is desugared to { tensor }; `value` keeps the literal's text, typed at compile.
  const RETURN_VALUE: MessageSchema = { name: 'Pipeline.ReturnValue', label: 'return output', fields: { tensor: f('string'), value: list(f('string')) } };
  const RETURN: MessageSchema = {
    name: 'Pipeline.Return', label: 'return', fields: { when: f('string'), outputs: { type: { kind: 'message', message: RETURN_VALUE }, mapKey: 'string' } },
  };
  const MAP: MessageSchema = {
    name: 'Pipeline.Map',
    label: 'map',
    fields: { over: f('string'), as: f('string'), concurrency: f('int64'), max_items: f('int64'), steps, outputs: names() },
  };
  const LOOP: MessageSchema = {
    name: 'Pipeline.Loop',
    label: 'loop',
    fields: { max: f('int64'), carry: names(), while: f('string'), steps, next: names(), outputs: names() },
  };
  return {
    when: yaml(f('string')), switch: yaml(m(SWITCH)), return: yaml(m(RETURN)), map: yaml(m(MAP)), loop: yaml(m(LOOP)),
  };
}
