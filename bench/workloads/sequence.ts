/**
 * Sequence batcher throughput: an accumulator with implicit state (OUTPUT = INPUT + STATE,
 * OUTPUT_STATE = the same) run as 64 concurrent sequences of 100 steps, against the same 64
 * sequences run one at a time (the same work, so the figures compare like for like). In process
 * (`server.infer`), so it measures the scheduler and the model, not a protocol. Reports steps/s,
 * the batch size the direct strategy formed, and checks every sequence's final sum. The model is
 * ONNX (built here with scripts/onnx) and, the same in TypeScript, run by the typescript backend;
 * a variant that fails to load is reported and skipped.
 *
 *   node --import tsx bench/index.ts sequence
 */
import { rmSync } from 'node:fs';
import { lastValueFrom } from 'rxjs';
import { createGraph } from '../../scripts/onnx/index.js';
import { setLogSink } from '../../src/logger.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { writeRepository } from '../lib/index.js';
import type { RepoModel } from '../lib/write-repository.js';

const SEQUENCES = 64;
const STEPS = 100;

function accumulatorOnnx(): Uint8Array {
  return createGraph('accumulator')
    .input('INPUT', 'FP32', ['batch', 1])
    .input('STATE_IN', 'FP32', ['batch', 1])
    .node('Add', ['INPUT', 'STATE_IN'], ['OUTPUT'])
    .node('Identity', ['OUTPUT'], ['OUTPUT_STATE'])
    .output('OUTPUT', 'FP32', ['batch', 1])
    .output('OUTPUT_STATE', 'FP32', ['batch', 1])
    .encode();
}

const TS_MODEL = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const x = r.input('INPUT').data as Float32Array;
      const s = r.input('STATE_IN').data as Float32Array;
      const sum = new Float32Array(x.length);
      for (let i = 0; i < x.length; i++) sum[i] = x[i] + s[i];
      return new InferenceResponse({ outputs: [new Tensor('OUTPUT', 'FP32', [1, 1], sum), new Tensor('OUTPUT_STATE', 'FP32', [1, 1], sum.slice())] });
    });
  }
}
`;

const config = (name: string, runtime: string) => [
  `name: "${name}"`, runtime, `max_batch_size: ${SEQUENCES}`,
  'input [ { name: "INPUT" data_type: TYPE_FP32 dims: [ 1 ] } ]',
  'output [ { name: "OUTPUT" data_type: TYPE_FP32 dims: [ 1 ] } ]',
  'sequence_batching {',
  '  max_sequence_idle_microseconds: 5000000',
  '  direct { }',
  '  state [ { input_name: "STATE_IN" output_name: "OUTPUT_STATE" data_type: TYPE_FP32 dims: [ 1 ]',
  '            initial_state: { data_type: TYPE_FP32 dims: [ 1 ] zero_data: true name: "zero" } } ]',
  '}',
  'instance_group [ { count: 1 kind: KIND_CPU } ]', '',
].join('\n');

const VARIANTS: RepoModel[] = [
  { name: 'accumulator_onnx', config: config('accumulator_onnx', 'platform: "onnxruntime_onnx"'), files: { '1/model.onnx': accumulatorOnnx() } },
  { name: 'accumulator_ts', config: config('accumulator_ts', 'backend: "typescript"'), files: { '1/model.ts': TS_MODEL } },
];

/** Run one sequence of STEPS requests (each waits for the previous); returns the final sum. */
async function sequence(server: LocalServer, model: string, id: bigint): Promise<number> {
  let out = 0;
  for (let step = 0; step < STEPS; step++) {
    const res = await lastValueFrom(server.infer({
      model, inputs: [createTensor('INPUT', 'FP32', [1, 1], [step + 1])],
      sequence: { id, start: step === 0, end: step === STEPS - 1 },
    }));
    out = (res.outputs.find((t) => t.name === 'OUTPUT')!.data as Float32Array)[0]!;
  }
  return out;
}

/**
 * Run `count` sequences, `parallel` at a time (each worker takes the next id when its sequence
 * ends), and check every final sum. `parallel: 1` is "one sequence at a time": the same work done
 * serially, so the two figures compare like for like.
 */
async function measure(server: LocalServer, model: string, count: number, parallel: number, base: bigint) {
  const stats = () => server.modelStatistics(model).model_stats[0]!;
  const s0 = stats();
  const t0 = performance.now();
  const sums: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      sums[i] = await sequence(server, model, base + BigInt(i));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  const ms = performance.now() - t0;
  const s1 = stats();
  const expected = (STEPS * (STEPS + 1)) / 2;
  const wrong = sums.filter((s) => s !== expected).length;
  if (wrong) throw new Error(`${wrong} of ${count} sequences ended with the wrong sum (expected ${expected})`);
  const steps = count * STEPS;
  return {
    sequences: count, concurrent: parallel, steps, ms: Number(ms.toFixed(1)),
    stepsPerSec: Math.round((steps / ms) * 1000),
    avgBatch: Number(((s1.inference_count - s0.inference_count) / Math.max(1, s1.execution_count - s0.execution_count)).toFixed(1)),
    sequenceStats: s1.sequence_stats,
  };
}

export async function run(): Promise<object> {
  const repo = writeRepository(VARIANTS);
  setLogSink(() => {});
  const server = await createServer({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] }).catch((e: unknown) => {
    rmSync(repo, { recursive: true, force: true });
    throw e;
  });
  const results: Record<string, object> = {};
  try {
    for (const { name } of VARIANTS) {
      if (!server.modelReady(name)) {
        const reason = (await server.repositoryIndex()).find((m) => m.name === name)?.reason ?? 'not ready';
        console.log(`${name}: skipped (${reason})`);
        results[name] = { skipped: reason };
        continue;
      }
      await measure(server, name, 8, 8, 1_000_000n); // warm up
      const one = await measure(server, name, SEQUENCES, 1, 1n);
      const many = await measure(server, name, SEQUENCES, SEQUENCES, 1000n);
      const speedup = Number((many.stepsPerSec / one.stepsPerSec).toFixed(2));
      console.log(`${name.padEnd(17)} ${SEQUENCES} sequences, 1 at a time: ${String(one.stepsPerSec).padStart(7)} steps/s, batch ${one.avgBatch}`);
      console.log(`${name.padEnd(17)} ${SEQUENCES} sequences, concurrent:  ${String(many.stepsPerSec).padStart(7)} steps/s, batch ${many.avgBatch} (x${speedup})`, many.sequenceStats);
      results[name] = { one, many, speedup };
    }
    return results;
  } finally {
    await server.close();
    rmSync(repo, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
