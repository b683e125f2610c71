/**
 * Outputs come back in the config's `dims` whatever the backend, as Triton's core reshapes every
 * output whose config has `reshape` (InferenceResponse::AddOutput): a TypeScript script and the
 * identity backend here (the ONNX backend in test/backends/onnxruntime/output-reshape.test.ts).
 * The n-th -1 of `dims` takes the size at the n-th -1 of the reshape; the data is untouched.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import { startHttpServer } from '../../src/frontend/http/index.js';
import type { InferenceRequest } from '../../src/inference/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import type { TempRepo } from '../helpers/temp-repo.js';
import { scriptRepo } from '../backends/typescript/script-repo.js';

/**
 * Y counts 0.. in the reshape's shape [rows, 8, n, 1, 6] (n = X's length), or already in `dims`
 * ([rows, 2, 4, n, 6]) when parameter `mode` is "dims"; S is one value per row, shape [rows]
 * (reshape [] of dims [1]).
 */
const SHAPER = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const [rows, n] = r.input('X').shape;
      const shape = r.parameters.mode === 'dims' ? [rows, 2, 4, n, 6] : [rows, 8, n, 1, 6];
      const y = new Float32Array(rows * 48 * n).map((_, i) => i);
      const s = new Float32Array(rows).map((_, i) => i + 0.5);
      return new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', shape, y), new Tensor('S', 'FP32', [rows], s)] });
    });
  }
}
`;

/** Calls 'shaper' (BLS) and answers the shape of the Y it got. */
const CALLER = `import { InferenceRequest, InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  async execute([r]: Request[]): Promise<InferenceResponse[]> {
    const res = await new InferenceRequest({ model: 'shaper', inputs: [r.input('X')], requestedOutputNames: ['Y'] }).exec();
    const y = res.output('Y');
    return [new InferenceResponse({ outputs: [new Tensor('SHAPE', 'INT32', [1, y.shape.length], y.shape)] })];
  }
}
`;

let repo: TempRepo;
let server: Server;
let base: string;
let closeHttp: () => Promise<void>;

before(async () => {
  repo = scriptRepo({
    shaper: {
      config: [
        'max_batch_size: 4',
        'input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]',
        'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 2, 4, -1, 6 ] reshape { shape: [ 8, -1, 1, 6 ] } },',
        '         { name: "S" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] } } ]',
      ],
      code: SHAPER,
    },
    caller: {
      config: [
        'max_batch_size: 4',
        'input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]',
        'output [ { name: "SHAPE" data_type: TYPE_INT32 dims: [ -1 ] } ]',
      ],
      code: CALLER,
    },
  });
  repo.file('ident/config.pbtxt', [
    'name: "ident"', 'backend: "identity"', 'max_batch_size: 0',
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4, 4 ] reshape { shape: [ 16 ] } } ]',
    'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 2, 8 ] reshape { shape: [ 16 ] } } ]', '',
  ].join('\n'));
  repo.file('ident/1/.keep', '');
  server = await createServer({ modelRepository: repo.dir });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${http.port}`;
  closeHttp = http.close;
});
after(async () => {
  await closeHttp?.();
  await server?.close();
  repo?.remove();
});

const run = async (req: InferenceRequest) => (await lastValueFrom(server.infer(req).pipe(toArray())))[0]!;
const x = (rows: number, n: number) => createTensor('X', 'FP32', [rows, n], new Float32Array(rows * n));

test('a script answering in the reshape\'s shape is answered in dims, -1 from -1, data untouched', async () => {
  const res = await run({ model: 'shaper', inputs: [x(2, 5)] });
  const y = res.outputs.find((t) => t.name === 'Y')!;
  assert.deepEqual(y.shape, [2, 2, 4, 5, 6]);
  assert.deepEqual(Array.from((y.data as Float32Array).subarray(0, 4)), [0, 1, 2, 3]);
  assert.equal((y.data as Float32Array).length, 2 * 48 * 5);
  const s = res.outputs.find((t) => t.name === 'S')!;
  assert.deepEqual(s.shape, [2, 1], 'an empty reshape gains the dims\' [1] behind the batch dim');
  assert.deepEqual(Array.from(s.data as Float32Array), [0.5, 1.5]);
});

test('a script already answering in dims is left as it is', async () => {
  const res = await run({ model: 'shaper', inputs: [x(1, 3)], parameters: { mode: 'dims' } });
  assert.deepEqual(res.outputs.find((t) => t.name === 'Y')!.shape, [1, 2, 4, 3, 6]);
});

test('a BLS call sees the callee\'s outputs in dims, as a client does', async () => {
  const res = await run({ model: 'caller', inputs: [x(1, 7)] });
  assert.deepEqual(Array.from(res.outputs[0]!.data as Int32Array), [1, 2, 4, 7, 6]);
});

test('the identity backend: input reshape in, output reshape out', async () => {
  const data = new Float32Array(16).map((_, i) => i);
  const res = await run({ model: 'ident', inputs: [createTensor('X', 'FP32', [4, 4], data)] });
  assert.deepEqual(res.outputs[0]!.shape, [2, 8]);
  assert.deepEqual(Array.from(res.outputs[0]!.data as Float32Array), Array.from(data));
});

test('over HTTP the output shape is the config\'s dims', async () => {
  const r = await fetch(`${base}/v2/models/shaper/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 2], data: [0, 0] }], outputs: [{ name: 'Y' }, { name: 'S' }] }),
  });
  const body = await r.json() as { outputs: { name: string; shape: number[] }[] };
  assert.equal(r.status, 200, JSON.stringify(body));
  assert.deepEqual(body.outputs.map((o) => [o.name, o.shape]), [['Y', [1, 2, 4, 2, 6]], ['S', [1, 1]]]);
});
