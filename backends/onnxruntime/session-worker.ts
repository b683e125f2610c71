/**
 * Worker-thread side of the worker runner: one ORT session per worker. Messages from the parent:
 * { type: 'run', id, feeds, fetches } and { type: 'close' }; replies { id, outputs } or
 * { id, error }. Output buffers are transferred back (ORT gives each output its own buffer).
 */
import * as ort from 'onnxruntime-node';
import { parentPort, workerData } from 'node:worker_threads';
import type { PlainTensor } from './ort-tensor.js';
import { ortFeeds, plainResults } from './session-runner.js';

interface Init { modelFile: string; options: ort.InferenceSession.SessionOptions }
type Message = { type: 'run'; id: number; feeds: PlainTensor[]; fetches: string[] } | { type: 'close' };

const port = parentPort!;
const init = workerData as Init;

function transferables(ts: readonly PlainTensor[]): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const t of ts) {
    if (Array.isArray(t.data)) continue;
    const buf = (t.data as ArrayBufferView).buffer;
    // Only whole, plain ArrayBuffers may move; anything else is cloned.
    if (buf instanceof ArrayBuffer && !out.includes(buf)) out.push(buf);
  }
  return out;
}

try {
  const session = await ort.InferenceSession.create(init.modelFile, init.options);
  port.on('message', (msg: Message) => {
    if (msg.type === 'close') {
      void session.release().finally(() => port.close());
      return;
    }
    session.run(ortFeeds(msg.feeds), msg.fetches).then((results) => {
      const outputs = plainResults(results, msg.fetches);
      port.postMessage({ id: msg.id, outputs }, transferables(outputs));
    }, (e: unknown) => {
      port.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) });
    });
  });
  port.postMessage({ ready: true });
} catch (e) {
  port.postMessage({ ready: false, error: e instanceof Error ? e.message : String(e) });
}
