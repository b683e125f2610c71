/**
 * Generates the ONNX models that tests and benchmarks use into build/models/ (git-ignored).
 * Run: node --import tsx scripts/build-test-models.ts [--force]
 * A model is rebuilt only when the stamp of the files that define it changes (see writeModels).
 * Tests call `ensureTestModels()` so they never depend on a previous build step.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  buildMlp, buildRaggedSum, createGraph, mlpWeights, seededFloats, sourceStamp, writeModels,
  type ElemType, type ModelSpec, type WriteResult,
} from './onnx/index.js';

const here = dirname(fileURLToPath(import.meta.url));
export const TEST_MODELS_DIR = join(here, '..', 'build', 'models');

/** Every datatype onnxruntime-node can carry through Identity (BF16 has no JS tensor type there). */
export const IDENTITY_DATATYPES: readonly ElemType[] = [
  'BOOL', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'INT8', 'INT16', 'INT32', 'INT64', 'FP16', 'FP32', 'FP64', 'BYTES',
];

/** identity_<dt>.onnx: INPUT0 [batch,16] -> OUTPUT0, for datatype dt ('fp32', 'bytes', ...). */
export function identityModelFile(dt: ElemType): string {
  return `identity_${dt.toLowerCase()}.onnx`;
}

function identity(dt: ElemType, dims: readonly (number | string)[], name = 'identity'): Uint8Array {
  return createGraph(name).input('INPUT0', dt, dims).output('OUTPUT0', dt, dims)
    .node('Identity', ['INPUT0'], ['OUTPUT0']).encode();
}

/** Like Triton's `simple` model: OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1 (INT32 [batch,16]). */
function simple(): Uint8Array {
  return createGraph('simple')
    .input('INPUT0', 'INT32', ['batch', 16]).input('INPUT1', 'INT32', ['batch', 16])
    .node('Add', ['INPUT0', 'INPUT1'], ['OUTPUT0']).node('Sub', ['INPUT0', 'INPUT1'], ['OUTPUT1'])
    .output('OUTPUT0', 'INT32', ['batch', 16]).output('OUTPUT1', 'INT32', ['batch', 16]).encode();
}

/** A symbolic first dim named the way paddle2onnx names them; second symbolic dim stays -1. */
function p2oDims(): Uint8Array {
  const dims = ['p2o.DynamicDimension.0', 3, 'p2o.DynamicDimension.1'];
  return createGraph('p2o').input('x', 'FP32', dims).output('y', 'FP32', dims).node('Identity', ['x'], ['y']).encode();
}

/** FIXED_SHAPE_OFFSET is added to x: no batch dimension at all. */
export const FIXED_SHAPE_OFFSET = Float32Array.from([1, 2, 3, 4, 5, 6]);
function fixedShape(): Uint8Array {
  return createGraph('fixed_shape').input('x', 'FP32', [2, 3])
    .initializer('offset', 'FP32', [2, 3], FIXED_SHAPE_OFFSET)
    .node('Add', ['x', 'offset'], ['y']).output('y', 'FP32', [2, 3]).encode();
}

/**
 * slow_matmul: x FP32 [batch, N] -> y [batch, N] with y = mean(x) * (x @ W), computed the slow way
 * (outer product [N,N] then MatMul with W [N,N]: N^3 multiply-adds per row) so one run takes a
 * few ms on one thread. W comes from seededFloats(SLOW_MATMUL_SEED, N*N).
 */
export const SLOW_MATMUL_N = 512;
export const SLOW_MATMUL_SEED = 7;
function slowMatmul(): Uint8Array {
  const n = SLOW_MATMUL_N;
  return createGraph('slow_matmul').input('x', 'FP32', ['batch', n])
    .initializer('w', 'FP32', [n, n], seededFloats(SLOW_MATMUL_SEED, n * n))
    .initializer('ax2', 'INT64', [1], [2]).initializer('ax1', 'INT64', [1], [1])
    .node('Unsqueeze', ['x', 'ax2'], ['col']).node('Unsqueeze', ['x', 'ax1'], ['row'])
    .node('MatMul', ['col', 'row'], ['outer'])
    .node('MatMul', ['outer', 'w'], ['prod'])
    .node('ReduceMean', ['prod'], ['y'], { axes: [1], keepdims: 0 })
    .output('y', 'FP32', ['batch', n]).encode();
}

/**
 * wide_mlp.onnx: the batching benchmark's compute-bound model, x FP32 [batch, 256] -> y [batch, 16]
 * through three 1024-wide layers (2.4 M weights, 9.5 MB). One row reads every weight for 2 FLOPs
 * each, so batch 1 is bound by memory (measured 0.75 ms on one thread); rows of a batch share
 * those reads, so a row costs about 0.21 ms from batch 4 on: 3.5x to gain from batching.
 */
export const WIDE_MLP_SIZES = [256, 1024, 1024, 1024, 16] as const;

/**
 * accumulator.onnx: a stateful model for the sequence batcher's implicit state.
 * OUTPUT = INPUT + STATE_IN and OUTPUT_STATE = OUTPUT, all FP32 [batch,1].
 */
function accumulator(): Uint8Array {
  return createGraph('accumulator')
    .input('INPUT', 'FP32', ['batch', 1]).input('STATE_IN', 'FP32', ['batch', 1])
    .node('Add', ['INPUT', 'STATE_IN'], ['OUTPUT']).node('Identity', ['OUTPUT'], ['OUTPUT_STATE'])
    .output('OUTPUT', 'FP32', ['batch', 1]).output('OUTPUT_STATE', 'FP32', ['batch', 1]).encode();
}

/**
 * accumulator_controls.onnx: the accumulator plus sequence control inputs, each echoed to an
 * output so tests see what the model was fed: START FP32, END BOOL, READY INT32, CORRID UINT64
 * (all [batch,1]) -> START_OUT, END_OUT, READY_OUT, CORRID_OUT.
 */
function accumulatorControls(): Uint8Array {
  const g = createGraph('accumulator_controls')
    .input('INPUT', 'FP32', ['batch', 1]).input('STATE_IN', 'FP32', ['batch', 1])
    .node('Add', ['INPUT', 'STATE_IN'], ['OUTPUT']).node('Identity', ['OUTPUT'], ['OUTPUT_STATE'])
    .output('OUTPUT', 'FP32', ['batch', 1]).output('OUTPUT_STATE', 'FP32', ['batch', 1]);
  const controls: Array<[string, ElemType]> = [['START', 'FP32'], ['END', 'BOOL'], ['READY', 'INT32'], ['CORRID', 'UINT64']];
  for (const [name, dt] of controls) {
    g.input(name, dt, ['batch', 1]).node('Identity', [name], [`${name}_OUT`]).output(`${name}_OUT`, dt, ['batch', 1]);
  }
  return g.encode();
}

export const IDENTITY_4M_ELEMENTS = 4 * 1024 * 1024;

export const TEST_MODELS: readonly ModelSpec[] = [
  ...IDENTITY_DATATYPES.map((dt) => ({ file: identityModelFile(dt), build: () => identity(dt, ['batch', 16]) })),
  { file: 'simple.onnx', build: simple },
  { file: 'mlp.onnx', build: () => buildMlp(mlpWeights()) },
  { file: 'p2o_dims.onnx', build: p2oDims },
  { file: 'fixed_shape.onnx', build: fixedShape },
  { file: 'slow_matmul.onnx', build: slowMatmul },
  { file: 'wide_mlp.onnx', build: () => buildMlp(mlpWeights(WIDE_MLP_SIZES, 11), 'wide_mlp') },
  { file: 'accumulator.onnx', build: accumulator },
  { file: 'accumulator_controls.onnx', build: accumulatorControls },
  { file: 'ragged_sum.onnx', build: buildRaggedSum },
  { file: 'identity_4m.onnx', build: () => identity('FP32', ['batch', IDENTITY_4M_ELEMENTS], 'identity_4m') },
];

function definitionFiles(): string[] {
  const lib = join(here, 'onnx');
  return [fileURLToPath(import.meta.url), ...readdirSync(lib).filter((f) => f.endsWith('.ts')).map((f) => join(lib, f))];
}

/** Build whatever is missing or stale; cheap when everything is up to date. */
export function ensureTestModels(opts: { force?: boolean; outDir?: string } = {}): WriteResult {
  const stamp = opts.force ? `force-${Date.now()}` : sourceStamp(definitionFiles());
  return writeModels(opts.outDir ?? TEST_MODELS_DIR, TEST_MODELS, stamp);
}

/** Absolute path of a generated test model, building the set first if needed. */
export function testModelPath(file: string): string {
  ensureTestModels();
  return join(TEST_MODELS_DIR, file);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const t0 = performance.now();
  const r = ensureTestModels({ force: process.argv.includes('--force') });
  const ms = (performance.now() - t0).toFixed(0);
  console.log(`test models in ${TEST_MODELS_DIR}: ${r.written.length} written, ${r.skipped.length} up to date (${ms} ms)`);
}
