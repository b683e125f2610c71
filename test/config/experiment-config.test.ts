/**
 * The `experiment:` block of a model config (src/config: experiment-schema.ts, validate-experiment.ts):
 * YAML and JSON take it with defaults filled, config.pbtxt refuses it with a clear message, and
 * every mistake is reported at its file:line:col.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { experimentModels, parseConfigText, validateConfig } from '../../src/config/index.js';

const problems = (text: string, format: 'yaml' | 'json' | 'pbtxt' = 'yaml') => {
  const parsed = parseConfigText(text, `e/config.${format}`, format);
  return validateConfig(parsed).filter((p) => p.severity === 'error').map((p) => `${p.line}:${p.col}: ${p.message}`);
};

test('YAML and JSON take an experiment; weights default to 1, the mirror to 100 percent and 64 copies in flight', () => {
  const yaml = parseConfigText('name: greet\nexperiment:\n  variants:\n    - { model: a }\n    - { model: b, version: "2", weight: 3 }\n  sticky: { header: x-user }\n  mirror: { model: shadow }\n', 'greet/config.yaml', 'yaml');
  assert.deepEqual(yaml.problems, []);
  assert.deepEqual(yaml.config.experiment, {
    variants: [{ model: 'a', weight: 1 }, { model: 'b', version: '2', weight: 3 }],
    sticky: { header: 'x-user' },
    mirror: { model: 'shadow', percent: 100, max_inflight_requests: 64 },
  });
  assert.deepEqual(yaml.config.instance_group, [], 'an experiment runs no instances of its own');
  assert.deepEqual(experimentModels(yaml.config), ['a', 'b', 'shadow']);
  assert.deepEqual(validateConfig(yaml), []);
  const json = parseConfigText(JSON.stringify({ name: 'greet', experiment: { variants: [{ model: 'a', weight: 0.5 }], sticky: { parameter: 'user' } } }), 'greet/config.json', 'json');
  assert.deepEqual(validateConfig(json), []);
  assert.deepEqual(json.config.experiment?.variants, [{ model: 'a', weight: 0.5 }]);
});

test('config.pbtxt refuses an experiment, naming the formats that take it', () => {
  assert.deepEqual(problems('name: "greet"\nexperiment { variants { model: "a" } }\n', 'pbtxt'), [
    "2:1: model 'greet': 'experiment' is a Tributary experiment, beyond Triton's ModelConfig that config.pbtxt keeps; write this model's config as config.yaml or config.json",
  ]);
});

test('every mistake in an experiment is reported at its position (the key that holds it)', () => {
  const text = [
    'name: greet',                                               // 1
    'backend: typescript',                                       // 2
    'dynamic_batching: {}',                                      // 3
    'experiment:',                                               // 4
    '  variants:',                                               // 5
    '    - { model: a, weight: -1 }',                            // 6
    '    - { model: a, version: "v2" }',                         // 7
    '    - { model: a }',                                        // 8
    '    - { model: greet }',                                    // 9
    '    - { weight: 2 }',                                       // 10
    '  sticky: { header: "x user", parameter: u }',              // 11
    '  mirror: { model: s, percent: 101, max_inflight_requests: 0 }', // 12
  ].join('\n');
  assert.deepEqual(problems(text), [
    "2:1: model 'greet': backend: an experiment runs no backend or scheduler of its own: its variants do; set this on the variants' configs",
    "3:1: model 'greet': dynamic_batching: an experiment runs no backend or scheduler of its own: its variants do; set this on the variants' configs",
    "6:19: model 'greet': experiment.variants[0]: weight must be a number >= 0, got -1",
    "7:19: model 'greet': experiment.variants[1]: version must be a version number such as \"2\", got 'v2'",
    "8:9: model 'greet': experiment.variants[2]: model 'a' is already variant 0; list each variant once",
    "9:9: model 'greet': experiment.variants[3]: an experiment cannot route to itself",
    "10:7: model 'greet': experiment.variants[4]: must name a model ({ model: NAME, weight: N })",
    "11:3: model 'greet': experiment.sticky: give exactly one of header (sticky: { header: x-user }) or parameter (sticky: { parameter: user })",
    "12:23: model 'greet': experiment.mirror: percent must be between 0 and 100, got 101",
    "12:37: model 'greet': experiment.mirror: max_inflight_requests must be >= 1, got 0",
  ]);
  assert.deepEqual(problems('name: e\nexperiment:\n  variants:\n    - { model: a, weight: 0 }\n    - { model: b, weight: 0 }\n  sticky: { header: "x user" }\n'), [
    "3:3: model 'e': experiment.variants: the weights must add up to more than 0 (a variant with weight 0 gets no traffic)",
    "6:13: model 'e': experiment.sticky.header: 'x user' is not a header name (letters, digits and !#$%&'*+.^_`|~-)",
  ]);
  assert.deepEqual(problems('name: e\nexperiment:\n  variants: []\n'), ["2:1: model 'e': experiment: list at least one variant under variants"]);
  assert.deepEqual(problems('name: e\nexperiment:\n  variants: [{ model: a }]\n  mirorr: { model: b }\n'), [
    "4:3: model 'e': unknown field 'mirorr' in experiment (experiment); did you mean 'mirror'?",
  ]);
});
