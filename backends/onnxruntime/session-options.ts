import type * as ort from 'onnxruntime-node';
import { configParam, configParamInt, type ModelConfig, type ModelInstanceGroup } from '../../src/config/index.js';
import { Errors } from '../../src/errors.js';
import { availableProviders } from './available-providers.js';

/**
 * Where a session runs (config parameter `execution_target`):
 * - `inline`: on the event loop. Lowest latency; `run()` blocks the loop for the model's run time.
 * - `worker`: in a worker thread per instance (one session each); tensors cross as transferred
 *   ArrayBuffers, about 15-40 µs per batch, and the event loop stays free.
 * - `auto` (default): time a warm run at load on zero inputs (batch 1) and use a worker when it takes
 *   longer than `worker_threshold_us` (default AUTO_WORKER_THRESHOLD_US).
 */
export type ExecutionTarget = 'inline' | 'worker' | 'auto';

/**
 * Cut-over for `auto`, measured on these 2-core machines (see the backend's test and report): a
 * worker round trip costs ~20-40 µs of latency and a little main-thread CPU per batch, so below
 * ~200 µs of compute inline wins on both counts; above it the blocked loop (no I/O, no batching of
 * other requests while ORT runs) costs more than the hop.
 * Big-but-cheap (memory-bound) models land on the worker side too, and rightly: identity FP32
 * [1,4M] (W2) measures ~5-9 ms per warm run (ORT's copy into its output plus the copy out to JS,
 * 16 MB each), and over HTTP in one session its compute_infer was 9-12 ms in a worker against
 * 11-25 ms inline, where it also blocks the event loop throughout. The hop is cheap once a request
 * body moves to the worker instead of being copied there (worker-runner.ts).
 */
export const AUTO_WORKER_THRESHOLD_US = 200;

export interface OrtSettings {
  readonly options: ort.InferenceSession.SessionOptions;
  readonly target: ExecutionTarget;
  readonly workerThresholdUs: number;
}

/** Triton's ORT backend: -1 basic, 1 extended, 2 disabled, anything else (0, the default) all. */
function graphLevel(level: number | undefined): NonNullable<ort.InferenceSession.SessionOptions['graphOptimizationLevel']> {
  if (level === -1) return 'basic';
  if (level === 1) return 'extended';
  if (level === 2) return 'disabled';
  return 'all';
}

/** Triton's `execution_mode`: 0 sequential (default), 1 parallel; the words are accepted too. */
function executionMode(config: ModelConfig): 'sequential' | 'parallel' {
  const v = (configParam(config, 'execution_mode') ?? '0').trim().toLowerCase();
  if (v === '0' || v === 'sequential' || v === '') return 'sequential';
  if (v === '1' || v === 'parallel') return 'parallel';
  throw Errors.modelLoadFailed(config.name, `parameter execution_mode '${v}' must be 0 (sequential) or 1 (parallel)`);
}

function target(config: ModelConfig): ExecutionTarget {
  const v = (configParam(config, 'execution_target') ?? 'auto').trim().toLowerCase();
  if (v === 'inline' || v === 'worker' || v === 'auto') return v;
  throw Errors.modelLoadFailed(config.name, `parameter execution_target '${v}' must be one of inline, worker, auto`);
}

const ACCELERATOR_PROVIDER: Record<string, string> = { cuda: 'cuda', tensorrt: 'tensorrt', openvino: 'openvino', cpu: 'cpu' };

/**
 * Execution providers from optimization.execution_accelerators, checked against what this build
 * of onnxruntime-node can load. Anything not available fails the load naming the provider.
 */
function executionProviders(config: ModelConfig): string[] {
  const acc = config.optimization?.execution_accelerators;
  const wanted = [...(acc?.gpu_execution_accelerator ?? []), ...(acc?.cpu_execution_accelerator ?? [])].map((a) => a.name);
  const have = availableProviders();
  const providers: string[] = [];
  for (const name of wanted) {
    const p = ACCELERATOR_PROVIDER[name.toLowerCase()];
    if (!p || !have.has(p)) throw Errors.providerUnavailable(config.name, name);
    if (!providers.includes(p)) providers.push(p);
  }
  if (!providers.includes('cpu')) providers.push('cpu');
  return providers;
}

/** KIND_GPU needs a GPU provider; KIND_AUTO falls back to the CPU like Triton does without GPUs. */
export function checkInstanceGroup(config: ModelConfig, group: ModelInstanceGroup): void {
  if (group.kind === 'KIND_GPU' && !availableProviders().has('cuda')) {
    throw Errors.providerUnavailable(config.name, `cuda (instance_group '${group.name}' has kind KIND_GPU)`);
  }
}

export function ortSettings(config: ModelConfig): OrtSettings {
  const intra = configParamInt(config, 'intra_op_thread_count', 1);
  const inter = configParamInt(config, 'inter_op_thread_count', 1);
  if (intra < 0 || inter < 0) {
    throw Errors.modelLoadFailed(config.name, `thread counts must be >= 0 (intra_op_thread_count ${intra}, inter_op_thread_count ${inter})`);
  }
  const options: ort.InferenceSession.SessionOptions = {
    // 0 lets ORT pick (one thread per core), as in Triton; we default to 1 so instances don't fight.
    intraOpNumThreads: intra,
    interOpNumThreads: inter,
    executionMode: executionMode(config),
    graphOptimizationLevel: graphLevel(config.optimization?.graph?.level),
    executionProviders: executionProviders(config),
  };
  return {
    options,
    target: target(config),
    workerThresholdUs: configParamInt(config, 'worker_threshold_us', AUTO_WORKER_THRESHOLD_US),
  };
}
