import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type * as ort from 'onnxruntime-node';
import { isExclusive, releaseExclusive } from '../../src/tensor/index.js';
import type { PlainTensor } from './ort-tensor.js';
import type { SessionRunner } from './session-runner.js';

type Reply = { id: number; outputs?: PlainTensor[]; error?: string };

/**
 * The worker script sits next to this module with the same extension: `.js` once compiled, `.ts`
 * under tsx. On Node 20 a worker's `--import tsx` does not reach the worker's own entry module, so
 * for `.ts` the worker starts from a tiny ESM bootstrap (a data: URL) that registers tsx's loader
 * and then imports the script.
 */
function workerEntry(): URL {
  const ext = extname(fileURLToPath(import.meta.url));
  const script = new URL(`./session-worker${ext}`, import.meta.url);
  if (ext !== '.ts') return script;
  const api = import.meta.resolve('tsx/esm/api');
  const code = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(script.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

/**
 * Inputs move to the worker without a copy when their buffers belong to this run: a batch buffer
 * that covers exactly the tensor (`owned`), or a buffer its creator marked exclusive (a request
 * body that only this request's inputs view; moved whole, header bytes and all, and the views keep
 * their offsets). Otherwise one compact copy is made and moved, so a view over a large shared
 * buffer never clones the whole buffer. W2 (16 MB FP32 in): the copy was ~6 ms of main-thread CPU
 * plus a 16 MB allocation per request; the move is a few µs.
 */
function prepareFeeds(feeds: readonly PlainTensor[], owned: boolean): { feeds: PlainTensor[]; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const out = feeds.map((f) => {
    if (Array.isArray(f.data)) return f;
    let data = f.data as Exclude<PlainTensor['data'], string[]>;
    const buf = data.buffer;
    if (buf instanceof ArrayBuffer && isExclusive(buf)) {
      if (!transfer.includes(buf)) transfer.push(buf);
      return f;
    }
    const whole = data.byteOffset === 0 && data.byteLength === buf.byteLength && buf instanceof ArrayBuffer;
    if (!owned || !whole || transfer.includes(buf as ArrayBuffer)) data = data.slice() as typeof data;
    transfer.push(data.buffer as ArrayBuffer);
    return { ...f, data };
  });
  return { feeds: out, transfer };
}

/** Start a worker with its own session; resolves once the session is created. */
export function createWorkerRunner(modelFile: string, options: ort.InferenceSession.SessionOptions): Promise<SessionRunner> {
  const worker = new Worker(workerEntry(), { workerData: { modelFile, options } });
  const pending = new Map<number, { resolve: (o: PlainTensor[]) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let dead: Error | undefined;
  let exited: Promise<void> | undefined;

  const die = (e: Error) => {
    dead ??= e;
    for (const p of pending.values()) p.reject(dead);
    pending.clear();
  };

  return new Promise<SessionRunner>((resolveReady, rejectReady) => {
    exited = new Promise((res) => worker.once('exit', (code) => {
      die(new Error(`onnxruntime worker exited (code ${code})`));
      rejectReady(dead!);
      res();
    }));
    worker.on('error', (e) => { die(new Error(`onnxruntime worker failed: ${e.message}`)); rejectReady(dead!); });
    worker.once('message', (m: { ready: boolean; error?: string }) => {
      if (!m.ready) {
        rejectReady(new Error(m.error ?? 'onnxruntime worker failed to start'));
        void worker.terminate();
        return;
      }
      // An idle worker must not keep the process alive; it is ref'd while runs are in flight.
      worker.unref();
      worker.on('message', (r: Reply) => {
        const p = pending.get(r.id);
        if (!p) return;
        pending.delete(r.id);
        if (pending.size === 0) worker.unref();
        if (r.error !== undefined) p.reject(new Error(r.error));
        else p.resolve(r.outputs!);
      });
      resolveReady({
        target: 'worker',
        run(feeds, fetches, owned) {
          if (dead) return Promise.reject(dead);
          const id = nextId++;
          const prepared = prepareFeeds(feeds, owned);
          return new Promise<PlainTensor[]>((resolve, reject) => {
            pending.set(id, { resolve, reject });
            worker.ref();
            try {
              worker.postMessage({ type: 'run', id, feeds: prepared.feeds, fetches }, prepared.transfer);
            } catch (e) {
              // e.g. a DataCloneError for a buffer already moved away: fail this run, leave no
              // pending entry behind (a ref'd worker with nothing to answer would hang the process).
              pending.delete(id);
              if (pending.size === 0) worker.unref();
              reject(e instanceof Error ? e : new Error(String(e)));
              return;
            }
            // Moved buffers are gone from this thread: they can never be moved again.
            for (const b of prepared.transfer) releaseExclusive(b);
          });
        },
        async close() {
          if (dead) return;
          worker.postMessage({ type: 'close' });
          const timer = setTimeout(() => void worker.terminate(), 2000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
  });
}
