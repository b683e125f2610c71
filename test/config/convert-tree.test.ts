/**
 * Keys named like Object.prototype members, in every config format: as fields they are unknown
 * (a problem with its position, not a TypeError), as map keys they are entries like any other.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configFromJsonObject, parseConfigText } from '../../src/config/index.js';

const KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

const errors = (r: { problems: readonly { severity: string; message: string }[] }) => r.problems.filter((p) => p.severity === 'error').map((p) => p.message);

for (const key of KEYS) {
  test(`a field named '${key}' is an unknown field in pbtxt, YAML and JSON, at the top and nested`, () => {
    const pbtxt = parseConfigText(`name: "m"\n${key}: 1\ninput [ { name: "X" ${key}: 2 } ]\ndynamic_batching { ${key}: 3 }\n`, 'c.pbtxt', 'pbtxt');
    assert.deepEqual(errors(pbtxt).map((m) => /unknown field '([^']+)' in (\S+)/.exec(m)?.slice(1)), [[key, 'ModelConfig'], [key, 'input[0]'], [key, 'dynamic_batching']]);
    const yaml = parseConfigText(`name: p\n${key}: 1\nsteps:\n  - model: a\n    ${key}: 1\n    inputs: { x: x }\n`, 'p.yaml', 'yaml');
    assert.deepEqual(errors(yaml).map((m) => /unknown field '([^']+)' in (\S+)/.exec(m)?.slice(1)), [[key, 'ModelConfig'], [key, 'steps[0]']]);
    const json = configFromJsonObject(JSON.parse(`{"name":"m","${key}":1,"input":[{"name":"X","${key}":{}}]}`), 'c.json');
    assert.deepEqual(errors(json).map((m) => /unknown field '([^']+)'/.exec(m)?.[1]), [key, key]);
  });
}

test('map keys named like Object.prototype members are own entries; no map gets a new prototype', () => {
  const entries = KEYS.map((k) => `"${k}":{"string_value":"v_${k}"}`).join(',');
  const json = configFromJsonObject(JSON.parse(`{"name":"m","parameters":{${entries}}}`), 'c.json');
  assert.deepEqual(errors(json), []);
  const params = json.config.parameters!;
  assert.equal(Object.getPrototypeOf(params), Object.prototype);
  assert.deepEqual(Object.keys(params), KEYS);
  for (const k of KEYS) assert.equal((Object.getOwnPropertyDescriptor(params, k)?.value as { string_value: string }).string_value, `v_${k}`);
  const pbtxt = parseConfigText(`name: "m"\nparameters { key: "__proto__" value: { string_value: "x" } }\n`, 'c.pbtxt', 'pbtxt');
  assert.deepEqual(Object.keys(pbtxt.config.parameters!), ['__proto__']);
  assert.equal(Object.getPrototypeOf(pbtxt.config.parameters), Object.prototype);
});
