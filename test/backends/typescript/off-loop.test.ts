import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lastValueFrom } from 'rxjs';
import { startHttpServer } from '../../../src/frontend/http/index.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { ECHO_MODEL, scriptRepo, spinModel } from './script-repo.js';

describe('scripts run off the event loop', () => {
  let repo: TempRepo;
  let server: Server;
  let http: { port: number; close(): Promise<void> };
  let base: string;
  before(async () => {
    repo = scriptRepo({ spin1: spinModel(1), spin2: spinModel(2), echo: ECHO_MODEL });
    repo.onnx('onnx_identity', 'identity_fp32.onnx');
    repo.file('onnx_identity/config.pbtxt', [
      'name: "onnx_identity"', 'platform: "onnxruntime_onnx"', 'max_batch_size: 8',
      'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]',
      'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]', '',
    ].join('\n'));
    server = await createServer({ modelRepository: repo.dir });
    http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${http.port}`;
  });
  after(async () => {
    await http.close();
    await server.close();
    repo.remove();
  });

  const spin = (model: string, ms: number) =>
    lastValueFrom(server.infer({ model, inputs: [createTensor('MS', 'INT32', [1], [ms])] }))
      .then((r) => [...(r.outputs[0]!.data as Float64Array)]);
  const post = (path: string, body: unknown) => fetch(base + path, { method: 'POST', body: JSON.stringify(body) });

  test('health, metadata, an ONNX model and another script answer while a script spins', async () => {
    const order: string[] = [];
    const spinning = spin('spin1', 1500).then(() => order.push('spin'));
    await new Promise((res) => setTimeout(res, 100));
    const done = (name: string) => (res: Response) => { assert.equal(res.status, 200, name); order.push(name); };
    await Promise.all([
      fetch(`${base}/v2/health/live`).then(done('live')),
      fetch(`${base}/v2/models/spin1`).then(done('metadata')),
      post('/v2/models/onnx_identity/infer', { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: new Array(16).fill(1) }] }).then(done('onnx')),
      post('/v2/models/echo/infer', { inputs: [{ name: 'IN', datatype: 'FP32', shape: [2], data: [1, 2] }] }).then(done('echo')),
    ]);
    await spinning;
    assert.equal(order.at(-1), 'spin', `everything else answered before the spinning script finished: ${order.join(', ')}`);
    assert.equal(order.length, 5);
  });

  test('instance_group count 2 runs two scripts at once; count 1 runs them one after the other', async () => {
    const overlap = ([a, b]: [number[], number[]]) => Math.min(a[1]!, b[1]!) - Math.max(a[0]!, b[0]!);
    const two = await Promise.all([spin('spin2', 300), spin('spin2', 300)]);
    assert.ok(overlap(two) > 0, `two instances overlapped: ${JSON.stringify(two)}`);
    const one = await Promise.all([spin('spin1', 300), spin('spin1', 300)]);
    assert.ok(overlap(one) <= 0, `one instance ran them in turn: ${JSON.stringify(one)}`);
  });

});
