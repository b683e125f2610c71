/**
 * One definition of the model configuration: the parser's schema and the ModelConfig types are
 * both held to the checked-in model_config.proto (Triton's messages with their field names,
 * numbers and types; the gRPC front end serves ModelConfig with it). A field added, renamed,
 * retyped or dropped on one side fails here until the other sides follow or the difference is
 * listed below with its reason.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { DATA_TYPE, ENSEMBLE_STEP, MODEL_CONFIG, type MessageSchema } from '../../src/config/config-schema.js';
import { CONFIG_DATATYPES, DATATYPES, toConfigType } from '../../src/tensor/index.js';
import {
  ROOT, compareSchema, compareTs, declared, loadProto, loadTypes, shortName, type Deviations,
} from './proto-drift.js';

const DEVIATIONS: Deviations = {
  accepted: {
    'ModelEnsembling.max_inflight_requests':
      "Tributary's bound on requests in flight through a whole pipeline (served on gRPC as max_inflight_responses)",
    // Pipeline control flow (issue 17): YAML only, refused in pbtxt and JSON (yamlOnly in the schema).
    'ModelEnsembling.Step.when': 'a guard on a pipeline step (YAML only)',
    'ModelEnsembling.Step.switch': 'a branch between step lists (YAML only)',
    'ModelEnsembling.Step.return': 'an early end of a pipeline (YAML only)',
    'ModelEnsembling.Step.map': 'a sub-pipeline per item (YAML only)',
    'ModelEnsembling.Step.loop': 'a bounded repetition (YAML only)',
    'ModelOutput.optional': 'a pipeline output some control-flow paths leave out (YAML only)',
    // Experiments (issue 28): YAML and JSON, refused in pbtxt (pbtxtRefused in the schema).
    'ModelConfig.experiment': 'a model that routes to variants by weight, sticky, with a mirror (docs/experiments.md)',
  },
  // None today: every proto field parses; values Tributary cannot honour are refused by validation
  // or by the backend, with a message naming the field.
  refused: {},
};

const root = loadProto();
const modelConfig = root.lookupType('inference.ModelConfig');

test('the parser schema has every message, field, type, map, oneof and enum value of model_config.proto', () => {
  const problems: string[] = [];
  const visited = compareSchema(MODEL_CONFIG, modelConfig, DEVIATIONS, problems);
  assert.deepEqual(problems, []);
  const all = declared(root);
  // DataType is reached through fields; every other enum and message must be reached from ModelConfig.
  assert.deepEqual([...all.messages].filter((m) => !visited.messages.has(m)), [], 'messages the schema never reaches');
  assert.deepEqual([...all.enums].filter((e) => !visited.enums.has(e)), [], 'enums the schema never reaches');
});

test('the ModelConfig interfaces have every field of model_config.proto with its shape', () => {
  const { checker, types } = loadTypes(join(ROOT, 'src/config/model-config.ts'));
  const problems: string[] = [];
  compareTs(checker, types.get('ModelConfig')!, modelConfig, DEVIATIONS, problems);
  assert.deepEqual(problems, []);
});

test('the listed deviations are real: each accepted field is outside the proto and inside the schema', () => {
  for (const key of Object.keys(DEVIATIONS.accepted)) {
    const [message, field] = [key.slice(0, key.lastIndexOf('.')), key.slice(key.lastIndexOf('.') + 1)];
    assert.equal(root.lookupType(`inference.${message}`).fields[field], undefined, `${key} is in the proto`);
  }
  assert.ok(MODEL_CONFIG.fields.ensemble_scheduling?.type.kind === 'message'
    && 'max_inflight_requests' in MODEL_CONFIG.fields.ensemble_scheduling.type.message.fields);
});

test('the DataType enum derives from the one datatype list, in proto number order', () => {
  const proto = root.lookupEnum('inference.DataType');
  assert.deepEqual(DATA_TYPE.values, CONFIG_DATATYPES);
  DATATYPES.forEach((dt) => assert.equal(proto.values[toConfigType(dt)], CONFIG_DATATYPES.indexOf(toConfigType(dt)), dt));
  assert.equal(CONFIG_DATATYPES.length, Object.keys(proto.values).length);
});

// The comparisons must be able to fail: drifted copies are caught.
test('a drifted schema is reported: a missing field, a retyped field, an extra field and a reordered enum', () => {
  const input = (MODEL_CONFIG.fields.input!.type as { message: MessageSchema }).message;
  const { optional: _dropped, ...inputFields } = input.fields;
  const drifted: MessageSchema = {
    ...MODEL_CONFIG,
    fields: {
      ...MODEL_CONFIG.fields,
      max_batch_size: { type: { kind: 'uint32' } },
      input: { type: { kind: 'message', message: { ...input, fields: { ...inputFields, data_type: {
        type: { kind: 'enum', enum: { name: 'DataType', values: [...DATA_TYPE.values].reverse() } },
      } } } }, repeated: true },
      ensemble_scheduling: { type: { kind: 'message', message: ENSEMBLE_STEP } },
      max_batch: { type: { kind: 'int32' } },
    },
  };
  const problems: string[] = [];
  compareSchema(drifted, modelConfig, DEVIATIONS, problems);
  const text = problems.join('\n');
  assert.match(text, /ModelConfig\.max_batch_size: uint32 in the schema, int32 in the proto/);
  assert.match(text, /ModelInput\.optional \(= 8, bool\) is in the proto but not in the schema/);
  assert.match(text, /DataType: values \[TYPE_BF16, .*\] in the schema/);
  assert.match(text, /ModelConfig\.max_batch is in the schema but not in the proto/);
  assert.match(text, /ModelEnsembling\.Step' stands for proto 'ModelEnsembling'/);
});

test('a type that does not match its message is reported field by field', () => {
  const { checker, types } = loadTypes(join(ROOT, 'src/config/model-config.ts'));
  const problems: string[] = [];
  // ModelOutput's interface checked against ModelInput: format and the input-only flags are missing,
  // label_filename is extra.
  compareTs(checker, types.get('ModelOutput')!, root.lookupType('inference.ModelInput'), DEVIATIONS, problems);
  const text = problems.join('\n');
  assert.match(text, /ModelInput\.format \(ModelInput\.format\) is in the proto but not in the type/);
  assert.match(text, /ModelInput\.label_filename is in the type but not in the proto/);
  assert.equal(shortName(root.lookupType('inference.ModelInput')), 'ModelInput');
});
