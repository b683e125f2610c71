/**
 * `tributary validate` and `tributary graph` on experiments, as users run them: validate reports a
 * variant that does not share the interface at its file:line:col and exits 1; graph draws the
 * guide's `greet` as its split (weights and shares) and its mirror, in Mermaid and DOT.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempRepo } from '../helpers/temp-repo.js';
import { runTributary } from '../helpers/tributary-process.js';
import { addConfig, addScript } from '../experiment/experiment-repo.js';

test('validate: an experiment over variants of different interfaces fails at the variant, naming the tensor', async (t) => {
  const repo = tempRepo({
    'a/config.yaml': addConfig('a'), 'a/1/model.ts': addScript(1),
    'b/config.yaml': addConfig('b', 'TYPE_INT32'), 'b/1/model.ts': addScript(2).replace(/Float32Array/g, 'Int32Array').replace(/'FP32'/g, "'INT32'"),
    'split/config.yaml': 'name: split\nexperiment:\n  variants:\n    - { model: a, weight: 9 }\n    - { model: b, weight: 1 }\n',
    'typo/config.json': JSON.stringify({ name: 'typo', experiment: { variants: [{ model: 'aa' }] } }),
  });
  t.after(() => repo.remove());
  const r = await runTributary(['validate', repo.dir], 120_000);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, new RegExp(`${repo.dir}/split/config.yaml:5:9: error: model 'split': experiment.variants\\[1\\] 'b': input 'X' is TYPE_INT32 \\[1\\], but variant 'a' has TYPE_FP32 \\[1\\]`));
  assert.match(r.stdout, /typo\/config.json:1:\d+: error: model 'typo': experiment.variants\[0\] 'aa': unknown model 'aa'; it is not in the model repository \(or not loaded\); did you mean 'a'\?/);
  assert.match(r.stdout, /4 model\(s\) checked: 3 error\(s\)/);
});

test("graph: the guide's greet as its split and its mirror, Mermaid and DOT", async () => {
  const [mermaid, dot] = await Promise.all([
    runTributary(['graph', 'greet', '--model-repository', 'examples/guide'], 120_000),
    runTributary(['graph', 'greet', '--model-repository', 'examples/guide', '--format', 'dot'], 120_000),
  ]);
  assert.equal(mermaid.code, 0, mermaid.stderr);
  assert.match(mermaid.stdout, /^flowchart LR$/m);
  assert.match(mermaid.stdout, /exp -->\|"weight 95 \(95%\)"\| v0/);
  assert.match(mermaid.stdout, /v1\["greet_b"\]/);
  assert.match(mermaid.stdout, /exp -.->\|"copy 100%"\| mirror/);
  assert.match(mermaid.stdout, /sticky on header x-user/);
  assert.equal(dot.code, 0, dot.stderr);
  assert.match(dot.stdout, /"exp" -> "v1" \[label="weight 5 \(5%\)"\];/);
  assert.match(dot.stdout, /"exp" -> "mirror" \[label="copy 100%", style=dashed\];/);
});
