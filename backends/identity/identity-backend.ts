import { fileURLToPath } from 'node:url';
import type { BackendFactory, BackendInstance, BackendModel, BackendRequest } from '../../src/backend/index.js';
import type { CancelSignal } from '../../src/inference/index.js';
import { configParamInt, type ModelConfig } from '../../src/config/index.js';
import { Errors } from '../../src/errors.js';
import { renameTensor, type Tensor } from '../../src/tensor/index.js';

/**
 * Like Triton's identity backend: output i is input i under output i's name (config inputs and
 * outputs zipped in order), the same data with no copy. Parameter `execute_delay_ms` delays each
 * execution on a timer (never a busy loop), so pipeline tests can show parallel branches overlap;
 * a request cancelled during the delay fails with Errors.cancelled.
 */
export function createIdentityBackend(): BackendFactory {
  return {
    name: 'identity',
    defaultModelFilename: 'model.identity',
    directory: fileURLToPath(new URL('.', import.meta.url)),
    async load(config: ModelConfig): Promise<BackendModel> {
      const pairs = zipIo(config);
      const delayMs = Math.max(0, configParamInt(config, 'execute_delay_ms', 0));
      return {
        async createInstance(): Promise<BackendInstance> {
          return {
            execute: (batch) => executeIdentity(config.name, pairs, delayMs, batch),
            async finalize() {},
          };
        },
      };
    },
  };
}

function zipIo(config: ModelConfig): Array<[input: string, output: string]> {
  if (config.input.length !== config.output.length) {
    throw Errors.modelLoadFailed(config.name,
      `the identity backend pairs inputs with outputs in order, but the config has ${config.input.length} input(s) and ${config.output.length} output(s)`);
  }
  return config.input.map((inp, i) => {
    const out = config.output[i]!;
    if (inp.data_type !== out.data_type) {
      throw Errors.modelLoadFailed(config.name,
        `identity input '${inp.name}' is ${inp.data_type} but its paired output '${out.name}' is ${out.data_type}`);
    }
    return [inp.name, out.name];
  });
}

function executeIdentity(model: string, pairs: ReadonlyArray<[string, string]>, delayMs: number, batch: readonly BackendRequest[]): Promise<void> | void {
  // Without a delay every request is answered before execute() returns: no promise at all.
  if (delayMs === 0) {
    for (const r of batch) answer(model, pairs, r);
    return;
  }
  // Each request waits on its own timer, so a cancelled one fails at once instead of after the batch.
  return Promise.all(batch.map(async (r) => {
    await delay(delayMs, r.signal);
    answer(model, pairs, r);
  })).then(() => undefined);
}

function answer(model: string, pairs: ReadonlyArray<[string, string]>, r: BackendRequest): void {
  if (r.signal.aborted) {
    r.fail(Errors.cancelled(model));
    return;
  }
  const outputs: Tensor[] = [];
  for (const [input, output] of pairs) {
    const t = r.request.inputs.find((x) => x.name === input);
    if (t) outputs.push(renameTensor(t, output)); // an absent optional input yields no output
  }
  r.send({ outputs }, true);
}

/** Resolves after `ms`, or early when `signal` aborts (the caller then sees signal.aborted). */
function delay(ms: number, signal: CancelSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => { clearTimeout(timer); resolve(); };
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
