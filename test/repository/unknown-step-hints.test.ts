/**
 * `validate` on a pipeline whose step models are in a repository it was not given: each unknown
 * step gets one error (none for its tensors) naming the repositories searched and, when a nearby
 * repository holds the model, the --model-repository that adds it. And a load failure's message is
 * reported once, with its model named once.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BackendRegistry } from '../../src/backend/index.js';
import { validateRepository } from '../../src/repository/index.js';
import { MAX_SIBLING_REPOSITORIES } from '../../src/repository/unknown-step-hints.js';
import { defaultBackends } from '../../src/server/index.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

const registry = new BackendRegistry();
for (const b of defaultBackends()) registry.register(b);

const PIPE = `name: pipe
max_batch_size: 4
input:
  - { name: X, data_type: TYPE_FP32, dims: [16] }
output:
  - { name: Y, data_type: TYPE_FP32, dims: [16] }
steps:
  - model: ident
    inputs: { INPUT0: X }
    outputs: { OUTPUT0: mid }
  - model: elsewhere_step
    inputs: { IN: mid }
    outputs: { OUT: Y }
`;

const IDENT = 'name: "ident"\nbackend: "onnxruntime"\nmax_batch_size: 8\n'
  + 'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]\noutput [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]\n';

// root/mine holds the pipeline; root/models (a sibling) holds ident; `nearby` holds elsewhere_step.
let root: TempRepo;
let nearby: TempRepo;
before(() => {
  root = tempRepo({ 'mine/pipe/config.yaml': PIPE, 'models/ident/config.pbtxt': IDENT });
  root.onnx('models/ident', 'identity_fp32.onnx');
  nearby = tempRepo({ 'elsewhere_step/config.pbtxt': IDENT.replace('"ident"', '"elsewhere_step"').replace('onnxruntime', 'identity')
    .replace('INPUT0', 'IN').replace('OUTPUT0', 'OUT') });
});
after(() => {
  root.remove();
  nearby.remove();
});

test('an unknown step model: one error per step naming the repositories searched and the one that has it', async () => {
  const mine = join(root.dir, 'mine');
  const report = await validateRepository([mine], registry, { nearby: [nearby.dir] });
  assert.deepEqual(report.problems.map((p) => `${p.line}:${p.col}: ${p.message}`), [
    `8:5: ensemble pipe contains models that are not available or ambiguous: ident; pipeline 'pipe', step 'ident' (step[0]): unknown model 'ident'; it is not in the model repository (or not loaded); `
      + `repositories searched: ${mine}; the repository '${join(root.dir, 'models')}' has it: add --model-repository ${join(root.dir, 'models')}`,
    `11:5: ensemble pipe contains models that are not available or ambiguous: elsewhere_step; pipeline 'pipe', step 'elsewhere_step' (step[1]): unknown model 'elsewhere_step'; it is not in the model repository (or not loaded); `
      + `repositories searched: ${mine}; the repository '${nearby.dir}' has it: add --model-repository ${nearby.dir}`,
  ]);
  const without = await validateRepository([mine], registry);
  assert.match(without.problems[1]!.message, /unknown model 'elsewhere_step'.*; repositories searched: \S+; add the repository that holds it with another --model-repository$/);
  // Given both, the pipeline validates.
  const both = await validateRepository([mine, join(root.dir, 'models'), nearby.dir], registry);
  assert.deepEqual(both.problems, []);
});

test(`only the first ${MAX_SIBLING_REPOSITORIES} sibling directories of a searched repository are looked in`, async () => {
  const many = tempRepo({ 'mine/pipe/config.yaml': PIPE.replace('elsewhere_step', 'ident') });
  try {
    // Sorted by name, "z_models" comes after the 64 "a<n>" directories.
    for (let i = 0; i < MAX_SIBLING_REPOSITORIES; i++) mkdirSync(join(many.dir, `a${String(i).padStart(3, '0')}`));
    mkdirSync(join(many.dir, 'z_models/ident'), { recursive: true });
    writeFileSync(join(many.dir, 'z_models/ident/config.pbtxt'), IDENT);
    const report = await validateRepository([join(many.dir, 'mine')], registry);
    assert.match(report.problems[0]!.message, /unknown model 'ident'.*add the repository that holds it with another --model-repository$/);
  } finally {
    many.remove();
  }
});

test('a python backend: one problem, at the backend field, the model named once, pointing to the migration guide', async () => {
  const r = tempRepo({ 'add_sub/config.pbtxt': 'name: "add_sub"\nbackend: "python"\nmax_batch_size: 0\n', 'add_sub/1/model.py': '' });
  try {
    const report = await validateRepository([r.dir], registry);
    assert.deepEqual(report.problems.map((p) => `${p.line}:${p.col}: ${p.message}`), [
      "2:1: model 'add_sub': unknown backend 'python'; this server runs 'onnxruntime', 'typescript', 'identity'; "
        + 'a Python model is ported to a TypeScript one (backend: "typescript"): see docs/migrating-from-python.md',
    ]);
  } finally {
    r.remove();
  }
});
