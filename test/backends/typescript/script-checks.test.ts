import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import type { InferenceRequest } from '../../../src/inference/index.js';
import { TributaryError } from '../../../src/errors.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import { quietLog } from '../../helpers/quiet-log.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { scriptRepo } from './script-repo.js';

// These scripts' execute() throws on purpose (a BLS cycle, WebAssembly refused), which is logged.
quietLog([/model '(selfcall|ping|pong|pair|wasm)': execute\(\) failed: /]);

/** Parameter `mode` picks what the script gets wrong. */
const BAD_OUTPUTS = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const rows = r.input('X').shape[0];
      const a = new Tensor('A', 'FP32', [rows, 2], new Float32Array(rows * 2));
      const b = new Tensor('B', 'INT32', [rows, 1], new Int32Array(rows));
      switch (r.parameters.mode) {
        case 'datatype': return new InferenceResponse({ outputs: [new Tensor('A', 'FP64', [rows, 2], new Float64Array(rows * 2)), b] });
        case 'shape': return new InferenceResponse({ outputs: [new Tensor('A', 'FP32', [rows, 3], new Float32Array(rows * 3)), b] });
        case 'rows': return new InferenceResponse({ outputs: [new Tensor('A', 'FP32', [rows + 1, 2], new Float32Array((rows + 1) * 2)), b] });
        case 'undeclared': return new InferenceResponse({ outputs: [a, b, new Tensor('C', 'FP32', [1], [1])] });
        case 'duplicate': return new InferenceResponse({ outputs: [a, b, a] });
        case 'none': return new InferenceResponse({ outputs: [] });
        case 'missing': return new InferenceResponse({ outputs: [a] });
        default: return new InferenceResponse({ outputs: [a, b] });
      }
    });
  }
}
`;

/** Calls parameter \`target\` (default: itself) with the same input. */
const CALLER = `import { InferenceRequest, InferenceResponse, type Request } from 'tributary/bls';
export default class Model {
  async execute([r]: Request[]): Promise<InferenceResponse[]> {
    const target = String(r.parameters.target ?? 'selfcall');
    const res = await new InferenceRequest({ model: target, inputs: [r.input('X')], parameters: { target: String(r.parameters.next ?? '') } }).exec();
    return [res];
  }
}
`;
const callerModel = (count: number) => ({
  config: [
    'max_batch_size: 0',
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]',
    'output [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]',
    `instance_group [ { count: ${count} kind: KIND_CPU } ]`,
  ],
  code: CALLER,
});

const WASM = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    // 1000 pages of 64 KiB: 62.5 MB, past the 32 MB memory_limit_mb
    const m = new WebAssembly.Memory({ initial: 1000 });
    return requests.map(() => new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', [1], [m.buffer.byteLength])] }));
  }
}
`;
const wasmModel = (allow: boolean) => ({
  config: [
    'max_batch_size: 0',
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]',
    'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]',
  ],
  code: WASM,
  params: { memory_limit_mb: '32', ...(allow ? { allow_webassembly: 'true' } : {}) },
});

describe('script outputs, BLS cycles and WebAssembly', () => {
  let repo: TempRepo;
  let server: Server;
  before(async () => {
    repo = scriptRepo({
      bad: {
        config: [
          'max_batch_size: 4',
          'input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]',
          'output [ { name: "A" data_type: TYPE_FP32 dims: [ 2 ] }, { name: "B" data_type: TYPE_INT32 dims: [ 1 ] } ]',
        ],
        code: BAD_OUTPUTS,
      },
      selfcall: callerModel(1),
      pair: callerModel(2),
      ping: callerModel(1),
      pong: callerModel(1),
      wasm: wasmModel(false),
      wasm_on: wasmModel(true),
    });
    server = await createServer({ modelRepository: repo.dir });
  });
  after(async () => {
    await server.close();
    repo.remove();
  });
  const run = (req: InferenceRequest) => lastValueFrom(server.infer(req).pipe(toArray()));
  const fails = async (req: InferenceRequest): Promise<TributaryError> => {
    try { await run(req); } catch (e) { assert.ok(e instanceof TributaryError, String(e)); return e; }
    assert.fail('expected a failure');
  };
  const x = (rows: number) => createTensor('X', 'FP32', [rows, 1], new Float32Array(rows));

  test('a good response passes; only the requested outputs reach the client', async () => {
    const [all] = await run({ model: 'bad', inputs: [x(2)] });
    assert.deepEqual(all!.outputs.map((t) => t.name), ['A', 'B']);
    const [some] = await run({ model: 'bad', inputs: [x(2)], outputs: [{ name: 'B' }] });
    assert.deepEqual(some!.outputs.map((t) => t.name), ['B']);
  });

  test('every kind of bad output is INTERNAL naming the script, the output and what was expected', async () => {
    const cases: [string, RegExp][] = [
      ['datatype', /output 'A' is FP64, the config declares FP32/],
      ['shape', /output 'A' has shape \[2,3\], the config expects \[2,2\]/],
      ['rows', /output 'A' has shape \[3,2\], the config expects \[2,2\] \(batch dimension 2/],
      ['undeclared', /output 'C' is not declared in the config \(declared: 'A', 'B'\)/],
      ['duplicate', /output 'A' is sent twice/],
      ['none', /the response has no outputs/],
    ];
    for (const [mode, want] of cases) {
      const e = await fails({ model: 'bad', inputs: [x(2)], parameters: { mode } });
      assert.equal(e.kind, 'INTERNAL', mode);
      assert.equal(e.code, 'TRB_SCRIPT_OUTPUT_INVALID', mode);
      assert.match(e.message, /^model 'bad': 1\/model\.ts execute\(\) response 0: /, mode);
      assert.match(e.message, want, mode);
    }
    const e = await fails({ model: 'bad', inputs: [x(1)], outputs: [{ name: 'B' }], parameters: { mode: 'missing' } });
    assert.match(e.message, /requested output 'B' is missing from the response/);
  });

  test('a script calling its own single-instance model fails at once naming the cycle', async () => {
    const e = await fails({ model: 'selfcall', inputs: [createTensor('X', 'FP32', [1], [1])] });
    assert.equal(e.code, 'TRB_BLS_CYCLE');
    assert.match(e.message, /BLS call cycle 'selfcall' -> 'selfcall'/);
    // The script threw the host's error, which names the model already: it is named once.
    assert.match(e.message, /^model 'selfcall': execute\(\) failed: BLS call cycle/);
    const e2 = await fails({ model: 'ping', inputs: [createTensor('X', 'FP32', [1], [1])], parameters: { target: 'pong', next: 'ping' } });
    assert.match(e2.message, /BLS call cycle 'ping' -> 'pong' -> 'ping'/);
  });

  test('a model with two instances may call itself once; the second level is the cycle', async () => {
    const e = await fails({ model: 'pair', inputs: [createTensor('X', 'FP32', [1], [1])], parameters: { target: 'pair', next: 'pair' } });
    assert.match(e.message, /BLS call cycle 'pair' -> 'pair' -> 'pair': every instance of 'pair' \(instance_group count 2\)/);
  });

  test('WebAssembly is off unless allow_webassembly is "true": a script cannot grow memory past its limit with it', async () => {
    const before = process.memoryUsage().arrayBuffers;
    const e = await fails({ model: 'wasm', inputs: [createTensor('X', 'FP32', [1], [1])] });
    assert.match(e.message, /WebAssembly is not defined/);
    assert.ok(process.memoryUsage().arrayBuffers - before < 32 * 2 ** 20);
    const [r] = await run({ model: 'wasm_on', inputs: [createTensor('X', 'FP32', [1], [1])] });
    assert.equal((r!.outputs[0]!.data as Float32Array)[0], 1000 * 65536);
  });
});
