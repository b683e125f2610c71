// The YAML twin of the langid ensemble (examples/yaml-pipelines) answers exactly as langid does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { infer } from '../../examples/pipelines/v2-fetch.js';
import { pipelinesDir, repoRoot } from './pipeline-files.js';
import { servePipelines, type Served } from './serve-pipelines.js';

let served: Served;
before(async () => {
  served = await servePipelines({
    modelRepository: [pipelinesDir, join(repoRoot, 'examples', 'yaml-pipelines')],
    modelControlMode: 'explicit',
    loadModels: ['langid', 'langid_yaml'],
  });
});
after(async () => { await served?.close(); });

test('langid_yaml (config.yaml steps) equals langid (config.pbtxt)', async () => {
  const texts = ['Questo è un libro molto interessante.', 'Dit is een heel interessant boek.', 'To jest bardzo ciekawa książka.'];
  const ask = (model: string) => infer(served.url, model, [{ name: 'TEXT', datatype: 'BYTES', shape: [3, 1], data: texts }], { top_k: 2 });
  const [yaml, pbtxt] = await Promise.all([ask('langid_yaml'), ask('langid')]);
  assert.deepEqual(yaml.outputs, pbtxt.outputs);
  assert.deepEqual(yaml.outputs.find((o) => o.name === 'LANGUAGE')!.data.filter((_, i) => i % 2 === 0), ['ita', 'nld', 'pol']);
});
