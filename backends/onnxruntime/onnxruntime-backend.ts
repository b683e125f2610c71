import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { settingIs, withBackendDefaults, type BackendFactory, type BackendInstance, type BackendModel, type LoadContext } from '../../src/backend/index.js';
import type { ModelConfig, ModelInstanceGroup } from '../../src/config/index.js';
import { Errors, TributaryError } from '../../src/errors.js';
import { checkConfig, completeConfig } from './auto-complete.js';
import { constantInputs } from './constant-inputs.js';
import { measureRunUs } from './measure-run.js';
import { modelSignature } from './model-signature.js';
import { createOrtInstance, type InstancePlan } from './ort-instance.js';
import { outputShapers, type OutputShapers } from './output-shapes.js';
import type { PlainTensor } from './ort-tensor.js';
import { raggedPlanOf } from './ragged-batch.js';
import { sequenceIo } from './sequence-io.js';
import { checkInstanceGroup, ortSettings } from './session-options.js';
import { createDirectRunner } from './direct-runner.js';
import { createInlineRunner, type SessionRunner } from './session-runner.js';
import { createWorkerRunner } from './worker-runner.js';
import { relativePaths } from './load-error-paths.js';

/** The loaded model; `executionTarget` and `measuredRunUs` say what `auto` decided (logs, tests). */
export interface OrtBackendModel extends BackendModel {
  readonly executionTarget: 'inline' | 'worker';
  readonly measuredRunUs: number | undefined;
}

/** The model file as load errors name it: relative to the model directory (see load-error-paths.ts). */
function shownFile(ctx: LoadContext): string {
  return relativePaths(ctx.modelFile, [ctx.modelDir]);
}

/** onnxruntime's own message without the server's paths. */
function ortMessage(ctx: LoadContext, e: unknown): string {
  return relativePaths(e instanceof Error ? e.message : String(e), [ctx.modelDir]);
}

/**
 * ONNX external data (TensorProto.external_data `location`) is confined by onnxruntime itself:
 * 1.30 refuses absolute locations and any that resolve (symlinks included) outside the directory
 * of the model file, before reading a byte (test/security/repository-paths.test.ts pins this).
 */
async function openSession(model: string, ctx: LoadContext, options: ort.InferenceSession.SessionOptions): Promise<ort.InferenceSession> {
  if (!existsSync(ctx.modelFile)) throw Errors.modelFileMissing(model, 'model file', shownFile(ctx), 'not found in the model directory');
  try {
    return await ort.InferenceSession.create(ctx.modelFile, options);
  } catch (e) {
    throw Errors.modelLoadFailed(model, `onnxruntime could not load '${shownFile(ctx)}': ${ortMessage(ctx, e)}`);
  }
}

async function load(config: ModelConfig, ctx: LoadContext): Promise<OrtBackendModel> {
  const settings = ortSettings(withBackendDefaults(config, ctx.settings));
  for (const g of config.instance_group) checkInstanceGroup(config, g);
  const probe = await openSession(config.name, ctx, settings.options);
  let measuredRunUs: number | undefined;
  let target: 'inline' | 'worker';
  let constants: PlainTensor[];
  let shapers: OutputShapers | undefined;
  try {
    const sig = modelSignature(probe);
    checkConfig(config, sig);
    constants = constantInputs(config, sig);
    shapers = outputShapers(config, sig);
    if (settings.target === 'auto') {
      measuredRunUs = await measureRunUs(probe, sig, constants);
      target = measuredRunUs !== undefined && measuredRunUs > settings.workerThresholdUs ? 'worker' : 'inline';
      ctx.log.verbose(1, `model '${config.name}': warm run ${measuredRunUs?.toFixed(1) ?? '(not measurable)'} µs -> ${target} execution`);
    } else {
      target = settings.target;
    }
  } catch (e) {
    await probe.release();
    throw e;
  }
  // Sequence control and state tensors are fed like client inputs (the sequence batcher adds them
  // to each request); state outputs are fetched so it can keep them for the next request.
  const seq = sequenceIo(config);
  const outputs = config.output.map((o) => o.name);
  let plan: InstancePlan = {
    model: config.name,
    inputs: [...config.input.map((i) => i.name), ...seq.inputs.map((x) => x.name)],
    outputs: [...outputs, ...seq.outputs.map((x) => x.name).filter((n) => !outputs.includes(n))],
    batched: config.max_batch_size > 0,
    constants,
  };
  const ragged = raggedPlanOf(config);
  if (ragged) plan = { ...plan, ragged };
  if (shapers) plan = { ...plan, shapers };
  // The probe session serves the first inline instance rather than being thrown away.
  let spare: ort.InferenceSession | undefined = probe;
  let warnedPublicApi = false;
  if (target === 'worker') { spare = undefined; await probe.release(); }

  return {
    executionTarget: target,
    measuredRunUs,
    async createInstance(_index: number, group: ModelInstanceGroup): Promise<BackendInstance> {
      checkInstanceGroup(config, group);
      let runner: SessionRunner;
      if (target === 'inline') {
        const direct = createDirectRunner(ctx.modelFile, settings.options);
        if ('run' in direct) {
          runner = direct;
          await spare?.release(); // the probe session is not needed once a direct one serves
          spare = undefined;
        } else {
          if (!warnedPublicApi) {
            warnedPublicApi = true;
            ctx.log.warn(`model '${config.name}': runs through onnxruntime-node's public API, a few µs and an event-loop turn slower per run: ${direct.unavailable}`);
          }
          const session = spare ?? await openSession(config.name, ctx, settings.options);
          spare = undefined;
          runner = createInlineRunner(session);
        }
      } else {
        runner = await createWorkerRunner(ctx.modelFile, settings.options).catch((e: unknown) => {
          throw Errors.modelLoadFailed(config.name, `onnxruntime worker could not load '${shownFile(ctx)}': ${ortMessage(ctx, e)}`);
        });
      }
      return createOrtInstance(plan, runner);
    },
    async finalize() {
      await spare?.release();
      spare = undefined;
    },
  };
}

/** Options for auto-complete's metadata-only session: no optimisation work, one thread. */
const METADATA_OPTIONS: ort.InferenceSession.SessionOptions = {
  graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1,
};

export function createOnnxRuntimeBackend(): BackendFactory {
  return {
    name: 'onnxruntime',
    platforms: ['onnxruntime_onnx'],
    defaultModelFilename: 'model.onnx',
    directory: fileURLToPath(new URL('.', import.meta.url)),
    // Session parameters (session-options.ts) a --backend-config may default.
    settings: {
      intra_op_thread_count: settingIs.int(0),
      inter_op_thread_count: settingIs.int(0),
      execution_mode: settingIs.oneOf('0', '1', 'sequential', 'parallel'),
      execution_target: settingIs.oneOf('inline', 'worker', 'auto'),
      worker_threshold_us: settingIs.int(0),
    },
    async autoComplete(config, ctx) {
      const session = await openSession(config.name, ctx, METADATA_OPTIONS);
      try {
        return completeConfig(config, modelSignature(session));
      } catch (e) {
        throw e instanceof TributaryError ? e : Errors.modelLoadFailed(config.name, String(e));
      } finally {
        await session.release();
      }
    },
    // What load checks on its probe session, on a metadata-only one: validate runs it.
    async check(config, ctx) {
      ortSettings(withBackendDefaults(config, ctx.settings)); // refuses bad parameters and unavailable providers
      for (const g of config.instance_group) checkInstanceGroup(config, g);
      const session = await openSession(config.name, ctx, METADATA_OPTIONS);
      try {
        const sig = modelSignature(session);
        checkConfig(config, sig);
        constantInputs(config, sig);
        outputShapers(config, sig);
      } finally {
        await session.release();
      }
    },
    load,
  };
}
