/**
 * A small in-memory `Server` for route tests that must not depend on the model layer: an
 * identity model per datatype, a decoupled `counter` (N responses), and a `slow` model whose
 * cancellation is observable. End-to-end tests use the real createServer instead.
 */
import { Observable } from 'rxjs';
import { Errors } from '../../../src/errors.js';
import { createTensor, renameTensor, type DataType } from '../../../src/tensor/index.js';
import type { InferenceRequest, InferenceResponse } from '../../../src/inference/index.js';
import type { ModelListener } from '../../../src/model/statistics.js';
import type { Server } from '../../../src/server/types.js';

export interface FakeServer extends Server {
  cancelled: string[];
  loads: { name: string; options: unknown }[];
  unloads: { name: string; options: unknown }[];
}

const META: Record<string, { inputs: { name: string; datatype: DataType; shape: number[] }[]; maxBatch: number; decoupled?: boolean }> = {
  identity: { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [-1, 16] }], maxBatch: 8 },
  counter: { inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }], maxBatch: 0, decoupled: true },
  slow: { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [-1] }], maxBatch: 0 },
  gen: { inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1] }], maxBatch: 0 },
};

export function createFakeServer(): FakeServer {
  const cancelled: string[] = [];
  const listeners = new Set<ModelListener>();
  const get = (name: string, version?: string) => {
    const m = META[name];
    if (!m || (version && version !== '1')) throw Errors.modelNotFound(name, version);
    return m;
  };
  const server: FakeServer = {
    cancelled,
    loads: [],
    unloads: [],
    isLive: () => true,
    isReady: () => true,
    metadata: () => ({ name: 'tributary', version: '0.0.0', extensions: ['binary_tensor_data', 'statistics', 'cuda_shared_memory'] }),
    modelReady: (name, version) => META[name] !== undefined && (!version || version === '1'),
    modelMetadata: (name, version) => {
      const m = get(name, version);
      return { name, versions: ['1'], platform: 'fake', inputs: m.inputs, outputs: m.inputs.map((i) => ({ ...i, name: i.name.replace('INPUT', 'OUTPUT') })) };
    },
    modelConfig: (name, version) => {
      const m = get(name, version);
      return { name, max_batch_size: m.maxBatch, model_transaction_policy: { decoupled: !!m.decoupled } } as never;
    },
    modelStatistics: (name) => ({ model_stats: name ? [{ name } as never] : [] }),
    infer: (req: InferenceRequest) => new Observable<InferenceResponse>((sub) => {
      let m;
      try {
        m = get(req.model, req.version);
      } catch (e) {
        sub.error(e);
        return undefined;
      }
      const base = { model: req.model, version: '1', ...(req.id ? { id: req.id } : {}) };
      if (req.model === 'identity' || req.model === 'gen') {
        const outputs = req.inputs.map((t) => renameTensor(t, t.name === 'text_input' ? 'text_output' : t.name.replace('INPUT', 'OUTPUT')));
        sub.next({ ...base, outputs, final: true });
        sub.complete();
        return undefined;
      }
      if (req.model === 'counter') {
        const n = (req.inputs[0]!.data as Int32Array)[0]!;
        let i = 0;
        const timer = setInterval(() => {
          if (i < n) sub.next({ ...base, outputs: [createTensor('OUT', 'INT32', [1], [i++])], final: false });
          else {
            clearInterval(timer);
            sub.next({ ...base, outputs: [], final: true });
            sub.complete();
          }
        }, 5);
        return () => clearInterval(timer);
      }
      void m;
      const timer = setTimeout(() => {
        sub.next({ ...base, outputs: req.inputs.map((t) => renameTensor(t, 'OUTPUT0')), final: true });
        sub.complete();
      }, 2000);
      return () => {
        clearTimeout(timer);
        cancelled.push(req.id ?? 'slow');
      };
    }),
    repositoryIndex: async () => Object.keys(META).map((name) => ({ name, version: '1', state: 'READY' as const, reason: '' })),
    loadModel: async (name, options) => {
      if (name === 'broken') throw Errors.modelLoadFailed(name, 'bad config');
      server.loads.push({ name, options });
    },
    unloadModel: async (name, options) => {
      get(name);
      server.unloads.push({ name, options });
    },
    addListener: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    close: async () => {},
  };
  return server;
}
