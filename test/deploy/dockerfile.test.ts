/**
 * The Dockerfile and .dockerignore: two stages on node:20-bookworm-slim (the compiler only in the
 * build stage), a non-root runtime user, serve's default ports exposed, an exec-form command that
 * serve accepts, tini as PID 1, and a HEALTHCHECK that is run here, against a real server: 0 while
 * it is ready, 1 once it drains and 1 when nothing listens. The image itself is built only where
 * docker, podman or buildah can build; otherwise that test is skipped and says why.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { createServer } from '../../src/server/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { ROOT, containerBuilder, defaultPort, serveArgs } from './deploy-files.js';

interface Instruction { op: string; args: string }

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text: string): Instruction[] {
  const joined = text.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n').replace(/\\\n/g, ' ');
  return joined.split('\n').filter((l) => l.trim()).map((l) => {
    const m = /^\s*(\w+)\s+(.*)$/.exec(l);
    assert.ok(m, `not an instruction: ${l}`);
    return { op: m[1]!.toUpperCase(), args: m[2]!.trim() };
  });
}

// The servers here load a model and drain: info lines only, nothing to show.
quietLog([]);
const all = instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const stages: Instruction[][] = [];
for (const i of all) {
  if (i.op === 'FROM') stages.push([]);
  stages.at(-1)!.push(i);
}
const runtime = stages.at(-1)!;
const one = (op: string) => {
  const found = runtime.filter((i) => i.op === op);
  assert.equal(found.length, 1, `the runtime stage has one ${op}`);
  return found[0]!.args;
};
/** An exec-form (JSON array) argument list; the shell form would put /bin/sh between tini and node. */
const execForm = (op: string): string[] => {
  const v: unknown = JSON.parse(one(op));
  assert.ok(Array.isArray(v), `${op} is in exec form`);
  return v as string[];
};

test('two stages on node:20-bookworm-slim; npm ci and the compiler only in the build stage', () => {
  assert.equal(stages.length, 2);
  assert.deepEqual(stages.map((s) => s[0]!.args), ['node:20-bookworm-slim AS build', 'node:20-bookworm-slim']);
  const run = (s: Instruction[]) => s.filter((i) => i.op === 'RUN').map((i) => i.args).join('\n');
  assert.match(run(stages[0]!), /\bnpm ci\b/);
  assert.match(run(stages[0]!), /python3 make g\+\+/);
  assert.doesNotMatch(run(runtime), /\b(g\+\+|make|python3|npm (ci|install))\b/);
  assert.ok(runtime.some((i) => i.op === 'COPY' && /--from=build \S*node_modules/.test(i.args)));
  // The build stage's npm (10, which ignores package.json's allowScripts) skips onnxruntime-node's GPU download.
  assert.ok(stages[0]!.some((i) => i.op === 'ENV' && /^ONNXRUNTIME_NODE_INSTALL=skip$/.test(i.args)));
});

test('the runtime runs as a non-root user and exposes serve\'s default ports', () => {
  assert.ok(!['root', '0', '0:0'].includes(one('USER')), `USER ${one('USER')}`);
  const exposed = one('EXPOSE').split(/\s+/).map(Number).sort();
  assert.deepEqual(exposed, [defaultPort('http-port'), defaultPort('grpc-port'), defaultPort('metrics-port')]);
});

test('tini is PID 1 and the command is `tributary serve` over the baked /models, in exec form', () => {
  assert.deepEqual(execForm('ENTRYPOINT'), ['/usr/bin/tini', '--']);
  const cmd = execForm('CMD');
  const flags = serveArgs(cmd);
  assert.deepEqual(flags['model-repository'], ['/models']);
  assert.ok(Number(flags['exit-timeout-secs']) > 0);
  assert.ok(runtime.some((i) => i.op === 'COPY' && /--from=build \/app\/pipelines \/models$/.test(i.args)), 'the built-in pipelines are baked in at /models');
});

test('.dockerignore keeps host builds out of the context', () => {
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
  for (const p of ['.git', 'node_modules', 'build', 'dist', 'pipelines/**/*.onnx']) assert.ok(ignored.includes(p), p);
});

/** The HEALTHCHECK's exit code, aimed at `port` instead of the image's 8000 (a child process: the server under test shares this event loop). */
function healthcheck(port: number): Promise<number | null> {
  const m = /^(?:--\S+\s+)*CMD\s+(\[.*\])$/.exec(one('HEALTHCHECK'));
  assert.ok(m, 'HEALTHCHECK ... CMD [exec form]');
  const argv = (JSON.parse(m[1]!) as string[]).map((a) => a.replace(`127.0.0.1:${defaultPort('http-port')}/v2/health/ready`, `127.0.0.1:${port}/v2/health/ready`));
  assert.equal(argv[0], 'node', 'node\'s fetch: the slim image has no curl');
  return new Promise((resolve) => {
    execFile(process.execPath, argv.slice(1), { timeout: 30_000 }, (err) => resolve(err ? (typeof err.code === 'number' ? err.code : null) : 0));
  });
}

test('the HEALTHCHECK passes on a ready server and fails once it drains or when nothing listens', async () => {
  const repo = tempRepo({
    'echo/config.pbtxt': 'name: "echo"\nbackend: "identity"\nmax_batch_size: 0\ninput [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]\noutput [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]\n',
    'echo/1/.keep': '',
  });
  const server = await createServer({ modelRepository: repo.dir });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  try {
    assert.equal(await healthcheck(http.port), 0, 'ready');
    await server.drain(0);
    assert.equal(await healthcheck(http.port), 1, 'draining (after SIGTERM)');
  } finally {
    await http.close();
    await server.close();
    repo.remove();
  }
  // A port that was free a moment ago: connection refused must fail the check, not hang it.
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  assert.equal(await healthcheck(port), 1, 'nothing listening');
});

const builder = containerBuilder();
test('the image builds and its command runs', {
  skip: 'none' in builder ? `${builder.none}; the image was not built` : false,
  timeout: 45 * 60_000,
}, () => {
  const tool = (builder as { tool: string }).tool;
  const tag = `tributary-test:${process.pid}`;
  const build = tool === 'buildah' ? ['bud', '-t', tag, ROOT] : ['build', '-t', tag, ROOT];
  const b = spawnSync(tool, build, { encoding: 'utf8', timeout: 45 * 60_000, maxBuffer: 64 << 20 });
  assert.equal(b.status, 0, b.stderr.slice(-4000));
  try {
    if (tool === 'buildah') return;
    const v = spawnSync(tool, ['run', '--rm', tag, 'tributary', '--version'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(v.status, 0, v.stderr);
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    assert.match(v.stdout, new RegExp(version.replace(/\./g, '\\.')));
    const user = spawnSync(tool, ['run', '--rm', '--entrypoint', 'id', tag, '-u'], { encoding: 'utf8', timeout: 120_000 });
    assert.notEqual(user.stdout.trim(), '0', 'the image runs as a non-root user');
  } finally {
    spawnSync(tool, ['rmi', '-f', tag], { timeout: 120_000 });
  }
});
