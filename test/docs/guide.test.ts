/**
 * Docs as tests: every command and config block of the pages under docs/ is run or parsed.
 * - sh/bash: `tributary ...` / `npx tributary ...` and `curl ...` lines run in a shell, against one
 *   real server (bin/tributary.js serve on loopback port 0, the built-in repository plus
 *   examples/guide) with localhost:8000/8001/8002 rewritten to its ports (and TRIBUTARY_URL /
 *   TRIBUTARY_GRPC set for `node --import tsx examples/...` clients); `tributary serve` lines
 *   are not started again but their flags must parse and their repositories exist. Any other
 *   command needs a `<!-- not-run: reason -->` note (the test lists them).
 * - pbtxt/yaml: parsed with the server's own parser and validated as a load would;
 *   `<!-- invalid: text -->` blocks must be refused with that text.
 * - json: JSON.parse; a `<!-- config -->` block is also validated as a config.json; a `<!-- response -->` block must be contained in what the command before it printed.
 * - a block with `<!-- file: path -->` must appear in that file.
 * docs/metrics.md's families are checked against the server's /metrics both ways.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serveFlagSpec } from '../../src/cli/serve-help.js';
import { parseConfigText, validateConfig } from '../../src/config/index.js';
import { BIN, LOOPBACK, startServe, type Served } from '../helpers/tributary-process.js';
import { containsJson, guidePages, pageBlocks, shellCommands, type DocBlock } from './doc-blocks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHELL = new Set(['sh', 'bash', 'shell']);
const CONFIG = new Set(['pbtxt', 'yaml', 'yml']);
const blocks = guidePages(ROOT).flatMap((p) => pageBlocks(ROOT, p));
const where = (b: DocBlock) => `${b.page}:${b.line}`;

/** The server the guide's curl commands talk to; ports are read from its start banner. */
function startServer(): Promise<Served> {
  return startServe(['--model-repository', 'pipelines', '--model-repository', 'examples/guide',
    '--model-control-mode', 'explicit', ...['langid', 'sentiment', 'mood', 'add_sub'].flatMap((m) => ['--load-model', m]),
    ...LOOPBACK, '--metrics-config', 'summary_latencies=true', '--metrics-config', 'histogram_latencies=true'], 120_000);
}

let server: Served;
/** Where commands run: links to the repository's pipelines/ and examples/, and a `tributary` on PATH. */
let work: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tributary-guide-'));
  for (const d of ['pipelines', 'examples', 'node_modules']) symlinkSync(join(ROOT, d), join(work, d));
  writeFileSync(join(work, 'tributary'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(work, 'tributary'), 0o755);
  server = await startServer();
});
after(async () => {
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Ran { code: number | null; stdout: string; stderr: string }

function sh(command: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a timeout ends the command's children too (sh may fork them).
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: work, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
      env: {
        ...process.env, PATH: `${work}:${process.env.PATH}`,
        TRIBUTARY_URL: `http://127.0.0.1:${server.http}`, TRIBUTARY_GRPC: `127.0.0.1:${server.grpc}`,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // Generous: a command is mostly node starting, which takes seconds on a loaded 2-core machine.
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`no exit in 120 s: ${command}\n${stderr}`));
    }, 120_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/** The command as the test runs it: the server's ports, `npx tributary` as the PATH shim. */
function rewrite(cmd: string): string {
  return cmd
    .replace(/^npx tributary\b/, 'tributary')
    .replace(/\blocalhost:8000\b/g, `127.0.0.1:${server.http}`)
    .replace(/\blocalhost:8001\b/g, `127.0.0.1:${server.grpc}`)
    .replace(/\blocalhost:8002\b/g, `127.0.0.1:${server.metrics}`);
}

/** A `tributary serve` line: its flags must be ones serve accepts, its repositories must exist. */
function checkServeLine(b: DocBlock, cmd: string): void {
  const argv = cmd.replace(/\s+#.*$/, '').split(/\s+/).slice(cmd.startsWith('npx') ? 3 : 2);
  const { values } = parseArgs({ args: argv, options: serveFlagSpec(), strict: true, allowPositionals: false });
  const repos = [...(values['model-repository'] as string[] | undefined ?? []), ...(values['model-store'] as string[] | undefined ?? [])];
  assert.ok(repos.length > 0, `${where(b)}: '${cmd}' names no --model-repository`);
  for (const r of repos) {
    if (!r.startsWith('my-')) assert.ok(existsSync(join(ROOT, r)), `${where(b)}: '${cmd}': repository ${r} does not exist`);
  }
}

const notRun: string[] = [];
const outputs = new Map<string, string>();

/** Runs one block's commands in order; blocks are independent of each other. */
async function runBlock(b: DocBlock): Promise<number> {
  let ran = 0;
  const commands = shellCommands(b.text);
  assert.ok(commands.length > 0, `${where(b)}: empty shell block`);
  for (const [i, cmd] of commands.entries()) {
    assert.match(cmd, /^(npx tributary|tributary|curl|node --import tsx examples\/\S+\.ts) /,
      `${where(b)}: '${cmd}' is not a tributary, curl or example command; mark the block <!-- not-run: reason -->`);
    ran++;
    if (/^(npx )?tributary (serve\b|--model-repository)/.test(cmd)) { checkServeLine(b, cmd); continue; }
    const r = await sh(rewrite(cmd));
    const last = i === commands.length - 1;
    const expected = last && b.notes['expect-exit'] !== undefined ? Number(b.notes['expect-exit']) : 0;
    assert.equal(r.code, expected, `${where(b)}: '${cmd}' exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    if (cmd.startsWith('curl')) assert.doesNotMatch(r.stdout, /^\{"error"/, `${where(b)}: '${cmd}' answered an error: ${r.stdout}`);
    outputs.set(`${b.page}:${b.line}`, r.stdout);
  }
  return ran;
}

test('every shell block of the guide runs, or says why not', async () => {
  const todo: DocBlock[] = [];
  for (const b of blocks.filter((x) => SHELL.has(x.lang))) {
    if (!('not-run' in b.notes)) { todo.push(b); continue; }
    assert.ok(b.notes['not-run'], `${where(b)}: not-run needs a reason`);
    notRun.push(`${where(b)}: ${b.notes['not-run']}`);
  }
  // Two blocks at a time: the machine has two cores, and most of a command is node starting.
  let ran = 0;
  await Promise.all([0, 1].map(async () => {
    for (let b = todo.shift(); b; b = todo.shift()) ran += await runBlock(b);
  }));
  assert.ok(ran > 0);
});

test('every pbtxt and YAML config block parses and validates (or is refused as the page says)', () => {
  for (const b of blocks.filter((x) => CONFIG.has(x.lang))) {
    const parsed = parseConfigText(b.text, where(b), b.lang === 'pbtxt' ? 'pbtxt' : 'yaml', { name: 'example' });
    const problems = 'fragment' in b.notes ? parsed.problems : validateConfig(parsed);
    const errors = problems.filter((p) => p.severity === 'error').map((p) => p.message);
    if ('invalid' in b.notes) {
      assert.ok(errors.some((m) => m.includes(b.notes.invalid!)), `${where(b)}: expected a problem with '${b.notes.invalid}', got:\n${errors.join('\n')}`);
    } else {
      assert.deepEqual(errors, [], `${where(b)}: config problems`);
    }
  }
});

test('every JSON block parses; response blocks match what the command before them printed', () => {
  const order = blocks.filter((x) => SHELL.has(x.lang) || x.lang === 'json');
  for (const [i, b] of order.entries()) {
    if (b.lang !== 'json') continue;
    const value: unknown = JSON.parse(b.text);
    if ('config' in b.notes) {
      const problems = validateConfig(parseConfigText(b.text, where(b), 'json', { name: 'example' }));
      assert.deepEqual(problems.filter((p) => p.severity === 'error').map((p) => p.message), [], `${where(b)}: config problems`);
    }
    if (!('response' in b.notes)) continue;
    const prev = order[i - 1];
    assert.ok(prev && prev.page === b.page && SHELL.has(prev.lang) && !('not-run' in prev.notes), `${where(b)}: a response block must follow a command block that runs`);
    const printed = outputs.get(`${prev.page}:${prev.line}`);
    assert.ok(printed !== undefined, `${where(b)}: the command before it did not run`);
    const bad = containsJson(JSON.parse(printed), value);
    assert.equal(bad, undefined, `${where(b)}: the server printed ${printed}`);
  }
});

test('code blocks taken from repository files are still in those files', () => {
  for (const b of blocks.filter((x) => 'file' in x.notes)) {
    const file = join(ROOT, b.notes.file!);
    assert.ok(existsSync(file), `${where(b)}: ${b.notes.file} does not exist`);
    const norm = (s: string) => s.split('\n').map((l) => l.trimEnd()).join('\n').trim();
    assert.ok(norm(readFileSync(file, 'utf8')).includes(norm(b.text)), `${where(b)}: the block is no longer in ${b.notes.file}`);
  }
});

test('docs/metrics.md lists exactly the metric families the server exports', async () => {
  await fetch(`http://127.0.0.1:${server.http}/v2/models/add_sub/infer`, {
    method: 'POST',
    body: JSON.stringify({ inputs: ['INPUT0', 'INPUT1'].map((name) => ({ name, datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] })) }),
  });
  const text = await (await fetch(`http://127.0.0.1:${server.metrics}/metrics`)).text();
  const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  const page = readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8');
  const documented = new Set([...page.matchAll(/^\| `((?:nv|tributary)_[a-z_]+)` \|/gm)].map((m) => m[1]!));
  assert.deepEqual([...exported].filter((f) => !documented.has(f)), [], 'families the server exports that docs/metrics.md does not list');
  assert.deepEqual([...documented].filter((f) => !exported.has(f)), [], 'families docs/metrics.md lists that the server does not export');
});

test('blocks not run are listed', (t) => {
  // Reported so a reader of the test output sees what the guide does not prove by running it.
  t.diagnostic(`${notRun.length} command block(s) not run:`);
  for (const n of notRun) t.diagnostic(`  ${n}`);
  const shellBlocks = blocks.filter((x) => SHELL.has(x.lang)).length;
  assert.ok(notRun.length < shellBlocks, 'at least one command block must run');
});
