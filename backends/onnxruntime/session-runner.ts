import * as ort from 'onnxruntime-node';
import { ortTensorOf, type OrtType, type PlainTensor } from './ort-tensor.js';

/** Runs one ORT session, inline or in a worker thread. Feeds and fetches are by graph name. */
export interface SessionRunner {
  readonly target: 'inline' | 'worker';
  /**
   * `owned`: the feeds' buffers belong to this call (a fresh batch buffer), so a worker runner may
   * transfer them instead of copying.
   */
  run(feeds: readonly PlainTensor[], fetches: readonly string[], owned: boolean): Promise<PlainTensor[]>;
  close(): Promise<void>;
}

/** Feeds -> ort.Tensor map; numeric data is passed as the same view. */
export function ortFeeds(feeds: readonly PlainTensor[]): Record<string, ort.Tensor> {
  const out: Record<string, ort.Tensor> = {};
  for (const f of feeds) out[f.name] = ortTensorOf(f);
  return out;
}

export function plainResults(results: ort.InferenceSession.ReturnType, fetches: readonly string[]): PlainTensor[] {
  return fetches.map((name) => {
    const t = results[name]!;
    return { name, type: t.type as OrtType, dims: t.dims, data: t.data as PlainTensor['data'] };
  });
}

export function createInlineRunner(session: ort.InferenceSession): SessionRunner {
  return {
    target: 'inline',
    async run(feeds, fetches) {
      const results = await session.run(ortFeeds(feeds), [...fetches]);
      return plainResults(results, fetches);
    },
    close: () => session.release(),
  };
}
