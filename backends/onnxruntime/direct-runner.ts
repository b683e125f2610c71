/**
 * An inline runner that calls onnxruntime-node's native session directly.
 *
 * Why: the public `InferenceSession.run()` defers every call with `setImmediate` (its
 * backend.js) and re-validates feeds and wraps outputs in JS on each call. Measured here on the
 * identity [1,16] model: 6.1 µs per public run against 4.3 µs direct in a tight loop, and about
 * 20 µs of added latency per HTTP request at c=1, because the setImmediate waits for the event
 * loop's check phase behind the rest of the I/O callback. The native run is synchronous either
 * way (it blocks the loop for the same compute), so calling it directly only removes the hop.
 *
 * The binding is internal to onnxruntime-node; ort-native-binding.ts checks it and is the only
 * file that touches it. When it is not as expected, `createDirectRunner` answers why, and the
 * backend serves through the public API.
 */
import type * as ort from 'onnxruntime-node';
import { nativeBinding, type NativeSession } from './ort-native-binding.js';
import { plainResults, ortFeeds, type SessionRunner } from './session-runner.js';

/** A synchronous native session for `file`, or the reason there is none. */
export function createDirectRunner(file: string, options: ort.InferenceSession.SessionOptions): SessionRunner | { unavailable: string } {
  const binding = nativeBinding();
  if (!binding.ok) return { unavailable: `onnxruntime-node ${binding.version}: ${binding.reason}` };
  let session: NativeSession;
  try {
    session = binding.create();
    session.loadModel(file, options);
  } catch (e) {
    return { unavailable: `onnxruntime-node ${binding.version}: its native session did not load the model (${(e as Error).message})` };
  }
  const fetchCache = new Map<string, Record<string, null>>();
  const noOptions = {};
  return {
    target: 'inline',
    async run(feeds, fetches) {
      const key = fetches.join('\0');
      let f = fetchCache.get(key);
      if (!f) {
        f = Object.fromEntries(fetches.map((n) => [n, null])) as Record<string, null>;
        fetchCache.set(key, f);
      }
      return plainResults(session.run(ortFeeds(feeds), f, noOptions), fetches);
    },
    async close() {
      session.dispose?.();
    },
  };
}
