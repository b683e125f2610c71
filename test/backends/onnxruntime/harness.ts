/**
 * Drives a BackendFactory directly, without a server: hand-made configs and load contexts, and
 * BackendRequests whose send/fail settle a promise.
 */
import { dirname } from 'node:path';
import type { BackendFactory, BackendInstance, BackendModel, BackendRequest, LoadContext } from '../../../src/backend/index.js';
import type { InferenceRequest, RequestedOutput } from '../../../src/inference/index.js';
import type { ModelConfig, ModelInput, ModelOutput } from '../../../src/config/index.js';
import { createLogger } from '../../../src/logger.js';
import type { Tensor } from '../../../src/tensor/index.js';

export function modelConfig(partial: Partial<ModelConfig> & { name: string }): ModelConfig {
  return {
    platform: '', backend: 'onnxruntime', runtime: '', version_policy: { latest: { num_versions: 1 } },
    max_batch_size: 0, input: [], output: [], batch_input: [], batch_output: [],
    instance_group: [{ name: `${partial.name}_0`, kind: 'KIND_CPU', count: 1 }],
    default_model_filename: '', cc_model_filenames: {}, metric_tags: {}, parameters: {}, model_warmup: [],
    model_transaction_policy: { decoupled: false },
    ...partial,
  };
}

export function io(name: string, dt: ModelInput['data_type'], dims: number[]): ModelInput & ModelOutput {
  return { name, data_type: dt, dims };
}

export function params(p: Record<string, string | number>): ModelConfig['parameters'] {
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, { string_value: String(v) }]));
}

export function loadContext(modelFile: string): LoadContext {
  return {
    modelDir: dirname(dirname(modelFile)),
    versionDir: dirname(modelFile),
    version: '1',
    modelFile,
    host: { infer() { throw new Error('no server in backend unit tests'); } },
    log: createLogger('test'),
  };
}

type Outcome = { outputs: Tensor[] } | { error: unknown };

export interface TestRequest {
  readonly req: BackendRequest;
  readonly outcome: Promise<Outcome>;
}

export function testRequest(model: string, inputs: Tensor[], opts: { batchSize?: number; outputs?: RequestedOutput[]; signal?: AbortSignal } = {}): TestRequest {
  let settle!: (o: Outcome) => void;
  const outcome = new Promise<Outcome>((r) => { settle = r; });
  const request: InferenceRequest = { model, inputs, ...(opts.outputs ? { outputs: opts.outputs } : {}) };
  const req: BackendRequest = {
    request,
    batchSize: opts.batchSize ?? inputs[0]?.shape[0] ?? 1,
    signal: opts.signal ?? new AbortController().signal,
    send(response, final) { if (final) settle({ outputs: response?.outputs ?? [] }); },
    fail(error) { settle({ error }); },
  };
  return { req, outcome };
}

/** Outputs of a request that must succeed, by name. */
export async function outputsOf(t: TestRequest): Promise<Record<string, Tensor>> {
  const o = await t.outcome;
  if ('error' in o) throw o.error;
  return Object.fromEntries(o.outputs.map((x) => [x.name, x]));
}

export async function errorOf(t: TestRequest): Promise<unknown> {
  const o = await t.outcome;
  if (!('error' in o)) throw new Error(`expected the request to fail, it returned ${o.outputs.map((x) => x.name).join(', ')}`);
  return o.error;
}

/** Load a model and create one instance of its first group. */
export async function loadInstance(factory: BackendFactory, config: ModelConfig, modelFile: string): Promise<{ model: BackendModel; instance: BackendInstance; close(): Promise<void> }> {
  const model = await factory.load(config, loadContext(modelFile));
  const instance = await model.createInstance(0, config.instance_group[0]!);
  return { model, instance, async close() { await instance.finalize(); await model.finalize?.(); } };
}
