/**
 * An in-process Server with a few scripted models, for testing the gRPC front end's translation
 * over a real gRPC connection without depending on the model/repository layers:
 * - `echo`: returns every input as OUT<i> (or renamed INPUT* -> OUTPUT*), honours requested outputs;
 * - `repeat` (decoupled): input IN = [n] yields n responses OUT = [i], then a bare final flag;
 * - `hang`: never answers; counts cancellations (unsubscribes);
 * - `fail`: fails with a backend error.
 */
import { Observable } from 'rxjs';
import { Errors } from '../../../src/errors.js';
import type { InferenceRequest, InferenceResponse } from '../../../src/inference/index.js';
import type { ModelConfig } from '../../../src/config/index.js';
import type { ModelIndexEntry, ModelMetadata, Server, LoadOptions } from '../../../src/server/types.js';
import { createTensor, renameTensor } from '../../../src/tensor/index.js';
import type { ModelStatistics } from '../../../src/model/statistics.js';
import { emptyInferStatistics } from '../../../src/model/statistics.js';

export interface FakeServer extends Server {
  requests: InferenceRequest[];
  cancelled: number;
  loads: { name: string; options?: LoadOptions }[];
  unloads: { name: string; options?: { unloadDependents?: boolean } }[];
  ready: boolean;
}

function config(name: string, decoupled = false): ModelConfig {
  return {
    name, platform: '', backend: 'fake', runtime: '', version_policy: { latest: { num_versions: 1 } },
    max_batch_size: 0,
    input: [{ name: 'IN', data_type: 'TYPE_INT32', dims: [-1] }],
    output: [{ name: 'OUT', data_type: 'TYPE_INT32', dims: [-1] }],
    batch_input: [], batch_output: [],
    instance_group: [{ name: `${name}_0`, kind: 'KIND_CPU', count: 1 }],
    default_model_filename: '', cc_model_filenames: {}, metric_tags: {}, parameters: { p: { string_value: 'v' } },
    model_warmup: [], model_transaction_policy: { decoupled },
    dynamic_batching: {
      preferred_batch_size: [4], max_queue_delay_microseconds: 100, preserve_ordering: false,
      priority_levels: 2, default_priority_level: 1, priority_queue_policy: {
        '1': { timeout_action: 'DELAY', default_timeout_microseconds: 5, allow_timeout_override: true, max_queue_size: 3 },
      },
    },
  };
}

const MODELS = ['echo', 'repeat', 'hang', 'fail'];

export function createFakeServer(): FakeServer {
  const known = (name: string) => {
    if (!MODELS.includes(name)) throw Errors.modelNotFound(name);
  };
  const fake: FakeServer = {
    requests: [], cancelled: 0, loads: [], unloads: [], ready: true,
    isLive: () => true,
    isReady: () => fake.ready,
    metadata: () => ({ name: 'tributary', version: '0.1.0', extensions: ['system_shared_memory', 'statistics'] }),
    modelReady: (name) => MODELS.includes(name),
    modelMetadata(name): ModelMetadata {
      known(name);
      return { name, versions: ['1'], platform: 'fake', inputs: [{ name: 'IN', datatype: 'INT32', shape: [-1] }], outputs: [{ name: 'OUT', datatype: 'INT32', shape: [-1] }] };
    },
    modelConfig(name) {
      known(name);
      return config(name, name === 'repeat');
    },
    modelStatistics(name) {
      const stats: ModelStatistics[] = (name ? [name] : MODELS).map((n) => ({
        name: n, version: '1', last_inference: 1700000000000, inference_count: 7, execution_count: 5,
        inference_stats: { ...emptyInferStatistics(), success: { count: 7, ns: 12345 } },
        response_stats: {}, batch_stats: [{ batch_size: 1, compute_input: { count: 5, ns: 10 }, compute_infer: { count: 5, ns: 20 }, compute_output: { count: 5, ns: 30 } }],
        memory_usage: [], step_stats: [],
      }));
      return { model_stats: stats };
    },
    infer(request) {
      fake.requests.push(request);
      return new Observable<InferenceResponse>((sub) => {
        const base = { model: request.model, version: '1', ...(request.id ? { id: request.id } : {}) };
        switch (request.model) {
          case 'echo': {
            let outputs = request.inputs.map((t, i) => renameTensor(t, t.name.startsWith('INPUT') ? t.name.replace('INPUT', 'OUTPUT') : `OUT${i}`));
            if (request.outputs) {
              const wanted = new Set(request.outputs.map((o) => o.name));
              outputs = outputs.filter((t) => wanted.has(t.name));
            }
            const parameters = request.parameters ? { echoed: Object.keys(request.parameters).length } : undefined;
            sub.next({ ...base, outputs, final: true, ...(parameters ? { parameters } : {}) });
            sub.complete();
            return;
          }
          case 'repeat': {
            const n = Number((request.inputs[0]!.data as Int32Array)[0]);
            let i = 0;
            let done = false;
            let timer: NodeJS.Timeout | undefined;
            const step = () => {
              if (i < n) {
                sub.next({ ...base, outputs: [createTensor('OUT', 'INT32', [1], [i++])], final: false });
                timer = setTimeout(step, 1);
              } else {
                done = true;
                sub.next({ ...base, outputs: [], final: true });
                sub.complete();
              }
            };
            timer = setTimeout(step, 1);
            return () => {
              if (!done) fake.cancelled++;
              clearTimeout(timer);
            };
          }
          case 'hang':
            return () => { fake.cancelled++; };
          case 'fail':
            sub.error(Errors.backendFailed(request.model, 'boom'));
            return;
          default:
            sub.error(Errors.modelNotFound(request.model));
        }
      });
    },
    async repositoryIndex(options) {
      const all: ModelIndexEntry[] = MODELS.map((name) => ({ name, version: '1', state: 'READY', reason: '' }));
      return options?.ready ? all : [...all, { name: 'broken', version: '1', state: 'UNAVAILABLE', reason: 'bad config' }];
    },
    async loadModel(name, options) {
      if (name === 'missing') throw Errors.modelLoadFailed(name, 'no such directory');
      fake.loads.push({ name, ...(options ? { options } : {}) });
    },
    async unloadModel(name, options) {
      fake.unloads.push({ name, ...(options ? { options } : {}) });
    },
    addListener: () => () => {},
    close: async () => {},
  };
  return fake;
}
