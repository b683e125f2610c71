/**
 * The serve flag table against tritonserver's full option list, the help generated from it, and
 * what happens to a flag that is not implemented (validated, then a warning or a refusal).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyFlagPolicy } from '../../src/cli/flag-policy.js';
import { parseFlags } from '../../src/cli/flags.js';
import { SERVE_FLAGS } from '../../src/cli/serve-flags.js';
import { describeFlag, serveFlagSpec, serveHelp } from '../../src/cli/serve-help.js';
import { Errors, TributaryError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { TRITONSERVER_FLAGS } from './tritonserver-flags.js';

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`I ${m}`),
    warn: (m) => lines.push(`W ${m}`),
    error: (m) => lines.push(`E ${m}`),
    verbose: (_l, m) => lines.push(`V ${m}`),
  };
}

/** Parse a serve command line and apply the policy, as `tributary serve` does. */
function policy(args: string[]): { lines: string[] } {
  const log = recorder();
  applyFlagPolicy(parseFlags('serve', args, serveFlagSpec()).values, log);
  return log;
}

function refusal(args: string[]): TributaryError {
  try {
    policy(args);
  } catch (e) {
    assert.ok(e instanceof TributaryError, String(e));
    return e;
  }
  assert.fail(`${args.join(' ')} was not refused`);
}

test('every tritonserver flag is in the table, marked tritonserver\'s, and listed by serve --help', () => {
  const byName = new Map(SERVE_FLAGS.map((f) => [f.name, f]));
  assert.equal(byName.size, SERVE_FLAGS.length, 'no flag is in the table twice');
  assert.equal(new Set(TRITONSERVER_FLAGS).size, TRITONSERVER_FLAGS.length);
  const missing = TRITONSERVER_FLAGS.filter((n) => !byName.has(n));
  assert.deepEqual(missing, [], `tritonserver flags missing from the table: ${missing.join(', ')}`);
  const mislabelled = TRITONSERVER_FLAGS.filter((n) => byName.get(n)?.origin !== 'triton');
  assert.deepEqual(mislabelled, []);
  const help = serveHelp();
  for (const f of SERVE_FLAGS) assert.match(help, new RegExp(`^  --${f.name}( |$)`, 'm'), `--help lists --${f.name}`);
});

test('each flag that is not implemented says why, and help shows it with the flag', () => {
  const help = serveHelp().replace(/\n +/g, ' ');
  for (const f of SERVE_FLAGS) {
    if (f.status !== 'implemented') assert.ok(f.reason && f.reason.length > 10, `--${f.name} has a reason`);
    // The help is the table: each description appears whole (wrapped lines re-joined).
    assert.ok(help.includes(describeFlag(f)), `--${f.name}: '${describeFlag(f)}'`);
  }
  assert.match(describeFlag(SERVE_FLAGS.find((f) => f.name === 'http-max-connections')!), /\[tributary only\]/);
  assert.match(describeFlag(SERVE_FLAGS.find((f) => f.name === 'http-thread-count')!), /\[no effect: /);
});

test('the parser spec comes from the table: a tritonserver flag is never an unknown option', () => {
  const spec = serveFlagSpec();
  for (const n of TRITONSERVER_FLAGS) assert.ok(spec[n], `--${n} parses`);
  assert.deepEqual(spec['model-repository'], { type: 'string', multiple: true });
  assert.deepEqual(spec['disable-auto-complete-config'], { type: 'boolean' });
  assert.equal(spec.help?.short, 'h');
  assert.throws(() => parseFlags('serve', ['--bogus'], spec), /Unknown option '--bogus'/);
});

test('a GPU flag is refused with INVALID_ARG naming the flag and the reason', () => {
  const e = refusal(['--cuda-memory-pool-byte-size=0:67108864']);
  assert.ok(Errors.cliFlagRefused.is(e));
  assert.equal(e.kind, 'INVALID_ARG');
  assert.match(e.message, /^--cuda-memory-pool-byte-size=0:67108864 is refused: tributary runs models on the CPU only/);
  assert.match(refusal(['--model-load-gpu-limit', '0:0.5']).message, /^--model-load-gpu-limit=0:0\.5 is refused: .*CPU only/);
  assert.match(refusal(['--allow-sagemaker=true']).message, /no SageMaker front end; remove it or give --allow-sagemaker=false$/);
  assert.match(refusal(['--cache-directory=/opt/my-caches']).message, /loads no cache shared libraries/);
  assert.match(refusal(['--backend-directory=/opt/my-backends']).message, /cannot load Triton shared libraries/);
});

test('--reuse-http-port/--reuse-grpc-port: false is accepted, true is refused naming the Node version needed', () => {
  assert.deepEqual(policy(['--reuse-http-port=false', '--reuse-grpc-port', '0']).lines, []);
  for (const flag of ['reuse-http-port', 'reuse-grpc-port']) {
    const e = refusal([`--${flag}=true`]);
    assert.match(e.message, new RegExp(`^--${flag}=true is refused: needs SO_REUSEPORT, which Node's net module offers from Node 22\\.12 \\(this is Node ${process.versions.node.replace(/\./g, '\\.')}\\)`));
  }
});

test('values that ask for nothing are accepted silently, whatever their spelling', () => {
  assert.deepEqual(policy([
    '--rate-limit=OFF', '--allow-vertex-ai=0', '--response-cache-byte-size=0', '--backend-directory=/opt/tritonserver/backends',
    '--trace-level=OFF', '--grpc-infer-response-compression-level=none',
  ]).lines, []);
});

test('thread-count and pool flags are validated as integers, then logged as having no effect and why', () => {
  const { lines } = policy(['--http-thread-count=16', '--grpc-infer-thread-count', '4', '--grpc-infer-allocation-pool-size=8', '--buffer-manager-thread-count=2']);
  assert.equal(lines.length, 4, lines.join('\n'));
  for (const l of lines) assert.match(l, /^W --[a-z-]+ has no effect: requests are served on Node's event loop/);
  assert.match(lines[0]!, /^W --http-thread-count has no effect/);
  assert.throws(() => policy(['--http-thread-count=many']), /--http-thread-count expects an integer from -2147483648 to 2147483647, got 'many'/);
  assert.throws(() => policy(['--enable-peer-access=maybe']), /--enable-peer-access expects true or false, got 'maybe'/);
  assert.throws(() => policy(['--min-supported-compute-capability=x']), /--min-supported-compute-capability expects a number, got 'x'/);
  assert.match(policy(['--pinned-memory-pool-byte-size=0']).lines[0]!, /^W --pinned-memory-pool-byte-size has no effect: pinned memory speeds copies to a GPU/);
});

test('implemented flags pass through the policy untouched', () => {
  assert.deepEqual(policy(['--id=x', '--exit-on-error=false', '--strict-readiness=false', '--disable-auto-complete-config', '--allow-cpu-metrics=false']).lines, []);
});
