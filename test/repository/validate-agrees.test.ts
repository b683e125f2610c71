/**
 * `tributary validate` and a load decide with one code path: for each broken model, validate
 * fails and a load of that model fails with the same message (validate names the files by the
 * path it was given, a load relative to the repository). And validate honours serve's repository
 * flags: --disable-auto-complete-config, --model-config-name, --backend-config.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { runTributary } from '../helpers/tributary-process.js';
import { ADD_CONST_CONFIG, addConstModel } from './add-const-model.js';
import { BROKEN, brokenRepo } from './broken-models.js';

const validate = (args: readonly string[]) => runTributary(['validate', ...args]);

/**
 * What validate must print for a load's message: after Triton's "version <v> is at UNAVAILABLE
 * state: <Status>: " (without the list's ';'), a config refusal lists its problems one per line as
 * "<message>; <file>:<line>:<col>" (Triton's words first), which validate prints as
 * "<file>:<line>:<col>: error: <message>"; so does a pipeline refusal; any other reason is one
 * problem of the model.
 */
function expectedLines(model: string, message: string): string[] {
  const reason = /version \d+ is at UNAVAILABLE state: [A-Za-z ]+: ([\s\S]*);$/.exec(message)?.[1] ?? message;
  const lines = reason.split('\n');
  const placed = lines.map((l) => /^([\s\S]*); (\S+:\d+:\d+)$/.exec(l));
  if (placed.every((m) => m)) return placed.map((m) => `${m![2]}: error: ${m![1]}`);
  return [`model '${model}': ${reason}`];
}

test('every broken model: validate fails, and a load fails with the same message', async () => {
  const r = brokenRepo();
  try {
    const v = await validate([r.dir]);
    assert.equal(v.code, 1, v.stdout + v.stderr);
    const shown = v.stdout.replaceAll(`${r.dir}/`, '');
    const server = await createServer({ modelRepository: r.dir, modelControlMode: 'explicit' });
    try {
      for (const model of Object.keys(BROKEN)) {
        const e = await server.loadModel(model).then(() => undefined, (err: Error) => err);
        assert.ok(e, `${model} (${BROKEN[model as keyof typeof BROKEN]}) must fail to load`);
        if (model === 'cycle_a') {
          // A load reports the loop from the model whose load closed it; validate from each pipeline.
          const links = (s: string) => new Set(/circular dependency between ensembles: [^(]*\(([^)]*)\)/.exec(s)?.[1]?.split(', '));
          assert.match(e.message, /circular dependency between ensembles/);
          assert.deepEqual(links(e.message), links(/^cycle_a\/config\.pbtxt:.*$/m.exec(shown)?.[0] ?? ''), shown);
          continue;
        }
        for (const line of expectedLines(model, e.message)) {
          assert.ok(shown.includes(line), `${model}: validate says what the load says:\n  load: ${line}\n  validate:\n${shown}`);
        }
      }
      assert.equal(server.modelReady('add_one'), true, 'the good step model loaded on the way');
    } finally {
      await server.close();
    }
    assert.match(v.stdout, new RegExp(`${Object.keys(BROKEN).length + 2} model\\(s\\) checked: \\d+ error`));
    assert.doesNotMatch(shown, /^add_one\//m, 'the good model has no problem');
  } finally {
    r.remove();
  }
});

test('validate honours --disable-auto-complete-config and --model-config-name as serve does', async () => {
  const r = tempRepo({
    'custom/config.pbtxt': ADD_CONST_CONFIG('custom'),
    // Only the custom config is wrong: it is read only with --model-config-name=wide.
    'custom/configs/wide.pbtxt': ADD_CONST_CONFIG('custom').replace('dims: [ 4 ] } ]\noutput', 'dims: [ 6 ] } ]\noutput'),
  });
  r.file('custom/1/model.onnx', addConstModel(1));
  r.file('bare/1/model.onnx', addConstModel(1));
  try {
    const [plain, strict, named] = await Promise.all([validate([r.dir]), validate([r.dir, '--disable-auto-complete-config']), validate([r.dir, '--model-config-name=wide'])]);
    assert.equal(plain.code, 0, plain.stdout);
    assert.equal(strict.code, 1, strict.stdout);
    assert.match(strict.stdout, /bare\/config\.pbtxt:1:1: error: model 'bare': no config\.pbtxt in the model directory/);
    assert.equal(named.code, 1, named.stdout);
    assert.match(named.stdout, /custom\/configs\/wide\.pbtxt:\d+:\d+: error: model 'custom': input 'x': config dims \[6\]/);
  } finally {
    r.remove();
  }
});

test('validate applies --backend-config as a load does, and refuses a bad entry with exit 2', async () => {
  const r = brokenRepo();
  try {
    // type_check=warn as a backend default turns the type error into a warning; the model's own parameter would win.
    const v = await validate([r.dir, '--backend-config=typescript,type_check=warn']);
    assert.doesNotMatch(v.stdout, /ts_types\/1\/model\.ts:\d+:\d+: error/);
    assert.match(v.stdout, /ts_types\/1\/model\.ts:1:1: warning: model 'ts_types': 1\/model\.ts:6:\d+: TS2551: Property 'dataa'/);
    const bad = await validate([r.dir, '--backend-config=typescript,type_check=maybe']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--backend-config=typescript,type_check=maybe is refused: typescript setting type_check must be one of error, warn, off, got 'maybe'/);
  } finally {
    r.remove();
  }
});
