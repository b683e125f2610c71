/**
 * The one place that reaches into onnxruntime-node's internals: its native binding module
 * (dist/binding.js), whose InferenceSession runs synchronously without the public API's
 * setImmediate hop (direct-runner.ts says what that buys). It is not part of the package's
 * public API, so its shape is checked here once, and every difference is a reason in words:
 * the server then serves through the public API and says why (a warning at load), and
 * test/backends/onnxruntime/ort-native-binding.test.ts fails on the version it was not checked
 * against, so an upgrade of onnxruntime-node cannot drop the fast path unnoticed.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as ort from 'onnxruntime-node';

/** The native session, as the binding of onnxruntime-node 1.2x-1.30 exposes it. */
export interface NativeSession {
  loadModel(path: string, options: object): void;
  run(feeds: Record<string, ort.Tensor>, fetches: Record<string, null>, options: object): ort.InferenceSession.ReturnType;
  dispose?(): void;
}

interface NativeModule {
  binding: { InferenceSession: new () => NativeSession };
  initOrt(): void;
}

export type NativeBinding =
  | { readonly ok: true; readonly version: string; create(): NativeSession }
  | { readonly ok: false; readonly version: string; readonly reason: string };

let checked: NativeBinding | undefined;

function check(): NativeBinding {
  const require = createRequire(import.meta.url);
  let version = 'unknown';
  let dist: string;
  try {
    const main = require.resolve('onnxruntime-node');
    dist = dirname(main);
    version = (require(join(dist, '..', 'package.json')) as { version?: string }).version ?? version;
  } catch (e) {
    return { ok: false, version, reason: `onnxruntime-node cannot be resolved (${(e as Error).message})` };
  }
  let mod: Partial<NativeModule>;
  try {
    mod = require(join(dist, 'binding.js')) as Partial<NativeModule>;
  } catch (e) {
    return { ok: false, version, reason: `its dist/binding.js cannot be loaded (${(e as Error).message.split('\n')[0]})` };
  }
  if (typeof mod.initOrt !== 'function') return { ok: false, version, reason: 'dist/binding.js exports no initOrt()' };
  const Session = mod.binding?.InferenceSession;
  if (typeof Session !== 'function') return { ok: false, version, reason: 'dist/binding.js exports no binding.InferenceSession' };
  for (const m of ['loadModel', 'run'] as const) {
    if (typeof (Session.prototype as Partial<NativeSession>)[m] !== 'function') return { ok: false, version, reason: `its native InferenceSession has no ${m}()` };
  }
  const init = mod.initOrt.bind(mod);
  return { ok: true, version, create: () => { init(); return new Session(); } };
}

/** The native binding, checked on first use (once per process). */
export function nativeBinding(): NativeBinding {
  return (checked ??= check());
}
