/**
 * A SIGTERM that arrives while `tributary serve` is still loading its repository (an orchestrator
 * giving up on a slow start, or a scale-down): the server finishes the load, serves nothing, closes
 * the models and exits 0, rather than being ended by the signal's default action.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { BIN, LOOPBACK, ROOT } from '../helpers/tributary-process.js';
import { tempRepo } from '../helpers/temp-repo.js';

// initialize() holds the load for a while (the sandbox has no timers: a busy wait).
const SLOW_MODEL = `import { InferenceResponse, type Request } from 'tributary/bls';
export default class Model {
  initialize(): void {
    const end = Date.now() + 1500;
    while (Date.now() < end) { /* a slow start */ }
  }
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map(() => new InferenceResponse({ outputs: [] }));
  }
}
`;

test('SIGTERM during the repository load: the load ends, nothing is served, exit 0', { timeout: 120_000 }, async () => {
  const repo = tempRepo({
    'slow/config.pbtxt': `name: "slow"
backend: "typescript"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1 ] } ]
`,
    'slow/1/model.ts': SLOW_MODEL,
  });
  try {
    const child = spawn(process.execPath, [BIN, 'serve', ...LOOPBACK, '--model-repository', repo.dir, '--log-verbose', '1'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      // The line logged just before the load starts: the signal lands while the model initializes.
      if (/loading the model repository/.test(out) && child.signalCode === null && child.exitCode === null) {
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.stdout.on('data', (x: Buffer) => (out += x.toString()));
        child.stderr.on('data', (x: Buffer) => (out += x.toString()));
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, s) => r([c, s])));
    assert.equal(signal, null, out);
    assert.equal(code, 0, out);
    assert.match(out, /SIGTERM received while the repository is loading/);
    assert.doesNotMatch(out, /listening on/);
    assert.match(out, /\] stopped$/m);
  } finally {
    repo.remove();
  }
});
