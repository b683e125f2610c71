/**
 * The `tributary` command as users run it: `node bin/tributary.js ...` in a child process, with
 * real repositories (the example fixture plus generated ONNX files), real front ends on loopback
 * port 0, and signals.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import { createServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { BIN, ROOT, runTributary, type Exited } from '../helpers/tributary-process.js';
import { exampleRepo, type ExampleRepo } from './example-repo.js';

type Run = Exited;
const run = runTributary;

/** Run a few commands two at a time (the machine has two cores). */
async function runAll(cases: readonly (readonly string[])[]): Promise<Run[]> {
  const out: Run[] = new Array(cases.length);
  let next = 0;
  await Promise.all([0, 1].map(async () => {
    while (next < cases.length) {
      const i = next++;
      out[i] = await run(cases[i]!);
    }
  }));
  return out;
}

let example: ExampleRepo;
let broken: TempRepo;

/** One problem of each kind, each in its own model. */
function brokenRepo(): TempRepo {
  const repo = tempRepo({
    'unknown_field/config.pbtxt': [
      'name: "unknown_field"', 'platform: "onnxruntime_onnx"', 'max_batch_size: 8',
      'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]',
      'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]',
      'max_batch_sise: 4', '',
    ].join('\n'),
    'bad_enum/config.yaml': [
      'name: bad_enum', 'backend: onnxruntime', 'max_batch_size: 8',
      'input:', '  - { name: INPUT0, data_type: TYPE_FLOAT32, dims: [16] }',
      'output:', '  - { name: OUTPUT0, data_type: TYPE_FP32, dims: [16] }', '',
    ].join('\n'),
    'mismatch/config.pbtxt': [
      'name: "mismatch"', 'platform: "onnxruntime_onnx"', 'max_batch_size: 8', 'input [',
      '  { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] },',
      '  { name: "INPUT1" data_type: TYPE_FP32 dims: [ 16 ] }', ']',
      'output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] } ]', '',
    ].join('\n'),
    'bad_pipe/config.pbtxt': [
      'name: "bad_pipe"', 'platform: "ensemble"', 'max_batch_size: 8',
      'input [ { name: "A" data_type: TYPE_FP32 dims: [ 16 ] } ]',
      'output [ { name: "B" data_type: TYPE_FP32 dims: [ 16 ] } ]',
      'ensemble_scheduling { step [',
      '  { model_name: "unknown_field" model_version: -1 input_map { key: "INPUT0" value: "A" } output_map { key: "OUTPUT0" value: "mid" } },',
      '  { model_name: "no_such_model" model_version: -1 input_map { key: "IN" value: "mid" } output_map { key: "OUT" value: "B" } }',
      '] }', '',
    ].join('\n'),
  });
  repo.onnx('unknown_field', 'identity_fp32.onnx');
  repo.onnx('bad_enum', 'identity_fp32.onnx');
  repo.onnx('mismatch', 'simple.onnx');
  return repo;
}

before(() => {
  example = exampleRepo();
  broken = brokenRepo();
});

after(() => {
  example.remove();
  broken.remove();
});

test('--help of the command and of each subcommand exits 0 and describes its flags', async () => {
  const [top, serve, validate, graph, newModel] = await runAll([['--help'], ['serve', '--help'], ['validate', '--help'], ['graph', '--help'], ['new-model', '--help']]);
  for (const r of [top, serve, validate, graph, newModel]) {
    assert.equal(r!.code, 0, r!.stderr);
    assert.equal(r!.stderr, '');
  }
  for (const cmd of ['serve', 'validate', 'graph', 'new-model']) assert.match(top!.stdout, new RegExp(`^  ${cmd} `, 'm'));
  for (const flag of ['--model-repository', '--model-control-mode', '--load-model', '--strict-model-config', '--http-port', '--grpc-port', '--metrics-port', '--allow-http']) {
    assert.ok(serve!.stdout.includes(flag), `serve --help mentions ${flag}`);
  }
  assert.match(validate!.stdout, /^Usage: tributary validate/);
  assert.match(graph!.stdout, /--format=mermaid\|dot/);
  assert.match(newModel!.stdout, /--backend typescript/);
});

test('unknown commands, unknown flags and bad values: one clear line on stderr, exit 2', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['frobnicate'], /unknown command 'frobnicate'/],
    [[], /Usage: tributary <command>/],
    [['serve', '--model-repository', example.dir, '--bogus'], /Unknown option '--bogus'.*tributary serve --help/],
    [['serve'], /--model-repository is required/],
    [['serve', '--model-repository', example.dir, '--http-port', 'abc'], /--http-port expects an integer from 0 to 65535, got 'abc'/],
    [['serve', '--model-repository', example.dir, '--grpc-port=70000'], /--grpc-port expects an integer from 0 to 65535, got '70000'/],
    [['serve', '--model-repository', example.dir, '--model-control-mode', 'sometimes'], /--model-control-mode must be none, explicit or poll, got 'sometimes'/],
    [['serve', '--model-repository', example.dir, '--allow-http=maybe'], /--allow-http expects true or false, got 'maybe'/],
    [['serve', '--model-repository', '/nonexistent/repo', '--http-port', '0'], /model repository '\/nonexistent\/repo' does not exist/],
    [['validate', '--strict-model-config=perhaps', example.dir], /--strict-model-config expects true or false, got 'perhaps'/],
    [['validate', '--colour', example.dir], /Unknown option '--colour'/],
    [['graph', 'add_sub_echo', '--model-repository', example.dir, '--format', 'svg'], /--format must be mermaid or dot, got 'svg'/],
    [['graph'], /Usage: tributary graph/],
    [['new-model', 'x', '--backend', 'python'], /--backend 'python' has no scaffold/],
    [['new-model', 'bad/name', '--backend', 'typescript'], /'bad\/name' is not a valid model name/],
    [['new-model', 'x', '--model-repository', example.dir], /--backend typescript is required/],
    [['new-model', 'x', '--backend', 'typescript'], /--model-repository <dir> is required/],
  ];
  const runs = await runAll(cases.map(([args]) => args));
  runs.forEach((r, i) => {
    const [args, pattern] = cases[i]!;
    assert.equal(r.code, 2, `tributary ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, pattern, `tributary ${args.join(' ')}`);
    assert.doesNotMatch(r.stderr, /\n\s+at .*\(.*:\d+:\d+\)/, 'no stack trace');
    assert.doesNotMatch(r.stderr, /successfully loaded/, 'flags are checked before any model loads');
  });
});

test('validate: the example repository is accepted (exit 0)', async () => {
  const r = await run(['validate', example.dir]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /5 model\(s\) checked: 0 error\(s\), 0 warning\(s\)/);
});

test('validate: every problem of a broken repository as file:line:col: error:, exit 1', async () => {
  const r = await run(['validate', broken.dir]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const lines = r.stdout.trim().split('\n');
  const errors = lines.filter((l) => / error: /.test(l));
  const at = (model: string, file: string) => errors.filter((l) => l.startsWith(`${join(broken.dir, model, file)}:`));
  // unknown field, at its line and column, with a suggestion
  assert.deepEqual(at('unknown_field', 'config.pbtxt'), [
    `${join(broken.dir, 'unknown_field/config.pbtxt')}:6:1: error: model 'unknown_field': unknown field 'max_batch_sise' in ModelConfig; did you mean 'max_batch_size'?`,
  ]);
  // a bad enum value in YAML, at the value
  const e = at('bad_enum', 'config.yaml');
  assert.equal(e.length, 1, e.join('\n'));
  assert.match(e[0]!, /config\.yaml:5:\d+: error: model 'bad_enum': input\[0\]\.data_type: invalid DataType value 'TYPE_FLOAT32' \(did you mean TYPE_FP32\?\)/);
  // a config/graph dtype mismatch, at the offending input
  assert.deepEqual(at('mismatch', 'config.pbtxt'), [
    `${join(broken.dir, 'mismatch/config.pbtxt')}:6:20: error: model 'mismatch': input 'INPUT1': config data_type TYPE_FP32 but the model has TYPE_INT32`,
  ]);
  // a pipeline step naming an unknown model, at the step
  const p = at('bad_pipe', 'config.pbtxt');
  assert.ok(p.some((l) => /config\.pbtxt:8:\d+: error: ensemble bad_pipe contains models that are not available or ambiguous: no_such_model; pipeline 'bad_pipe', step 'no_such_model'.*unknown model 'no_such_model'/.test(l)), p.join('\n'));
  assert.equal(errors.length, 3 + p.length, 'nothing else reported');
  assert.match(lines[lines.length - 1]!, new RegExp(`4 model\\(s\\) checked: ${errors.length} error\\(s\\)`));
});

test('graph: Mermaid by default, DOT with --format dot, for pbtxt and YAML pipelines', async () => {
  const [mermaid, dot, unknown, notPipeline] = await runAll([
    ['graph', 'add_sub_echo', '--model-repository', example.dir],
    ['graph', 'fp32_chain', '--model-repository', example.dir, '--format', 'dot'],
    ['graph', 'nope', '--model-repository', example.dir],
    ['graph', 'simple', '--model-repository', example.dir],
  ]);
  assert.equal(mermaid!.code, 0, mermaid!.stderr);
  const m = mermaid!.stdout;
  assert.match(m, /^flowchart LR\n/);
  for (const node of ['"A"', '"B"', '"simple"', '"echo_int32"', '"SUM"', '"DIFF"']) assert.ok(m.includes(node), `${node} in\n${m}`);
  // The tensors travel the edges the config wires.
  assert.match(m, /-->\|"sum_raw"\|/);
  assert.match(m, /-->\|"DIFF"\|/);
  assert.equal(dot!.code, 0, dot!.stderr);
  assert.match(dot!.stdout, /^digraph "fp32_chain" \{/);
  assert.match(dot!.stdout, /"in:X" -> "step:0" \[label="X"\];/);
  assert.match(dot!.stdout, /"step:0" -> "step:1" \[label="mid"\];/);
  assert.match(dot!.stdout, /"step:1" -> "out:Y" \[label="Y"\];/);
  assert.ok(dot!.stdout.trimEnd().endsWith('}'));
  assert.notEqual(unknown!.code, 0);
  assert.match(unknown!.stderr, /model 'nope' is not in the repositories searched \(.+\)/);
  assert.equal(notPipeline!.code, 2);
  assert.match(notPipeline!.stderr, /'simple' is not a pipeline/);
});

test('graph: a pipeline over a config-less (auto-completed) ONNX step draws, as validate accepts it', async () => {
  const repo = tempRepo({
    'pipe/config.yaml': [
      'name: pipe', 'max_batch_size: 4',
      'input:', '  - { name: X, data_type: TYPE_FP32, dims: [16] }',
      'output:', '  - { name: Y, data_type: TYPE_FP32, dims: [16] }',
      'steps:', '  - model: ident', '    inputs: { INPUT0: X }', '    outputs: { OUTPUT0: Y }', '',
    ].join('\n'),
  });
  repo.onnx('ident', 'identity_fp32.onnx');
  try {
    const [v, g] = await runAll([['validate', repo.dir], ['graph', 'pipe', '--model-repository', repo.dir]]);
    assert.equal(v!.code, 0, v!.stdout);
    assert.equal(g!.code, 0, g!.stderr);
    assert.match(g!.stdout, /in_X -->\|"X"\| s0/);
    assert.match(g!.stdout, /s0\["ident"\]/);
  } finally {
    repo.remove();
  }
});

test('graph: a step model in a repository not given is named with the --model-repository that adds it', async () => {
  const repo = tempRepo({
    'mine/text_stats/config.yaml': [
      'name: text_stats', 'max_batch_size: 4',
      'input:', '  - { name: TEXT, data_type: TYPE_STRING, dims: [1] }',
      'output:', '  - { name: FEATURES, data_type: TYPE_FP32, dims: [620] }',
      'steps:', '  - model: langid_featurize', '    inputs: { TEXT: TEXT }', '    outputs: { FEATURES: FEATURES }', '',
    ].join('\n'),
  });
  try {
    const [alone, both] = await runAll([
      ['graph', 'text_stats', '--model-repository', join(repo.dir, 'mine')],
      ['graph', 'text_stats', '--model-repository', join(repo.dir, 'mine'), '--model-repository', 'pipelines'],
    ]);
    assert.equal(alone!.code, 1);
    assert.match(alone!.stderr, new RegExp(`config\\.yaml:8:5: error: .*unknown model 'langid_featurize'.*; repositories searched: ${join(repo.dir, 'mine')}; `
      + "the repository 'pipelines' has it: add --model-repository pipelines\n$"));
    assert.equal(both!.code, 0, both!.stderr);
    assert.match(both!.stdout, /s0\["langid_featurize"\]/);
  } finally {
    repo.remove();
  }
});

test('serve: starts on port 0, answers /v2/health/ready and an ensemble over HTTP, stops cleanly on SIGTERM', async () => {
  const child = spawn(process.execPath, [BIN, 'serve', '--model-repository', example.dir,
    '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0',
    '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1', '--metrics-address', '127.0.0.1'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
  try {
    const port = await new Promise<number>((resolvePort, reject) => {
      const timer = setTimeout(() => reject(new Error(`no HTTP listening line in 30 s:\n${log}`)), 30_000);
      const check = () => {
        const m = /HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/.exec(log);
        const metrics = /metrics listening on/.test(log);
        if (m && metrics) {
          clearTimeout(timer);
          resolvePort(Number(m[1]));
        }
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      void exited.then(() => reject(new Error(`serve exited early:\n${log}`)));
    });
    assert.ok(port > 0);
    const ready = await fetch(`http://127.0.0.1:${port}/v2/health/ready`);
    assert.equal(ready.status, 200);
    const live = await fetch(`http://127.0.0.1:${port}/v2/health/live`);
    assert.equal(live.status, 200);
    const a = Array.from({ length: 16 }, (_, i) => i);
    const b = Array.from({ length: 16 }, (_, i) => 3 * i);
    const res = await fetch(`http://127.0.0.1:${port}/v2/models/add_sub_echo/infer`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ name: 'A', datatype: 'INT32', shape: [1, 16], data: a }, { name: 'B', datatype: 'INT32', shape: [1, 16], data: b }] }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json() as { outputs: Array<{ name: string; data: number[] }> };
    const out = Object.fromEntries(body.outputs.map((o) => [o.name, o.data]));
    assert.deepEqual(out.SUM, a.map((x, i) => x + b[i]!));
    assert.deepEqual(out.DIFF, a.map((x, i) => x - b[i]!));
    for (const m of ['add_sub_echo', 'echo_int32', 'fp32_chain', 'identity_fp32', 'simple']) assert.match(log, new RegExp(`model '${m}' version 1: READY`));

    child.kill('SIGTERM');
    const { code, signal } = await exited;
    assert.equal(signal, null, log);
    assert.equal(code, 0, log);
    assert.match(log, /stopping/);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/v2/health/live`), 'the port is closed after exit');
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

test('serve --exit-on-error=true exits 1 when a model fails to load', async () => {
  const r = await run(['serve', '--model-repository', broken.dir, '--exit-on-error=true', '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /a model failed to load and --exit-on-error=true/);
  assert.match(r.stderr, /model 'mismatch'.*UNAVAILABLE.*INPUT1/);
});

test('new-model NAME --backend typescript scaffolds a model that loads and answers its sample request', async () => {
  const repo = tempRepo();
  try {
    const r = await run(['new-model', 'shout', '--backend', 'typescript', '--model-repository', repo.dir]);
    assert.equal(r.code, 0, r.stderr);
    for (const f of ['config.pbtxt', '1/model.ts', 'tsconfig.json', 'sample-request.json']) assert.ok(r.stdout.includes(join(repo.dir, 'shout', f)), r.stdout);
    assert.ok(r.stdout.includes(`npx tsc -p ${join(repo.dir, 'shout')}`), r.stdout);
    assert.ok(r.stdout.includes(`npx tributary serve --model-repository ${repo.dir}`), r.stdout);
    const again = await run(['new-model', 'shout', '--backend', 'typescript', '--model-repository', repo.dir]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already has a config\.pbtxt/);

    const v = await run(['validate', repo.dir]);
    assert.equal(v.code, 0, v.stdout + v.stderr);

    const server = await createServer({ modelRepository: repo.dir });
    try {
      const index = await server.repositoryIndex();
      assert.deepEqual(index.map((m) => [m.name, m.state, m.reason]), [['shout', 'READY', '']]);
      const sample = JSON.parse(readFileSync(join(repo.dir, 'shout/sample-request.json'), 'utf8')) as { inputs: Array<{ name: string; shape: number[]; data: string[] }> };
      const input = sample.inputs[0]!;
      const responses = await lastValueFrom(server.infer({ model: 'shout', inputs: [createTensor(input.name, 'BYTES', input.shape, input.data)] }).pipe(toArray()));
      const res = responses[responses.length - 1]!;
      const upper = res.outputs.find((t) => t.name === 'UPPER')!;
      assert.deepEqual((upper.data as Uint8Array[]).map((x) => new TextDecoder().decode(x)), input.data.map((s) => s.toUpperCase()));
      const len = res.outputs.find((t) => t.name === 'LENGTH')!;
      assert.deepEqual([...(len.data as Int32Array)], input.data.map((s) => s.length));
    } finally {
      await server.close();
    }
  } finally {
    repo.remove();
  }
});
