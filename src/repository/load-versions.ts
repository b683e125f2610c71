import { toTributaryError, type TributaryError } from '../errors.js';
import type { Model } from '../model/index.js';
import { fingerprint } from './fingerprint.js';
import { versionFailures } from './load-failure.js';
import { loadModelVersion, type LoadEnv } from './model-loader.js';
import { withoutPath } from './model-paths.js';
import type { ModelEntry, VersionEntry } from './model-table.js';
import type { ReadConfig } from './read-model-config.js';

/**
 * Load the chosen versions of a model side by side and swap them in: the versions it served before
 * keep serving until the new ones are ready, and are unloaded once their requests finish. Throws
 * when no version loads, leaving what was served before. The pipeline's `steps` are recorded with
 * the swap, before the old versions drain.
 */
export async function loadVersions(entry: ModelEntry, dir: string, parsed: ReadConfig, chosen: readonly number[], steps: string[], env: LoadEnv): Promise<void> {
  const name = entry.name;
  const fp = await fingerprint(dir);
  const next = new Map<number, VersionEntry>();
  for (const v of chosen) next.set(v, { version: v, state: 'LOADING', reason: '' });
  const old = entry.versions;
  // Publish LOADING states for versions not already served; served ones keep serving until swapped.
  for (const [v, e] of next) if (!old.get(v)?.model) old.set(v, e);
  const results = await Promise.all(chosen.map(async (v) => {
    try {
      const t0 = performance.now();
      const model = await loadModelVersion(parsed, dir, v, env);
      return { v, model, ms: performance.now() - t0 };
    } catch (e) {
      return { v, error: toTributaryError(withoutPath(name, e)) };
    }
  }));
  const errors: TributaryError[] = [];
  const retired: Model[] = [];
  for (const r of results) {
    const e = next.get(r.v)!;
    if (r.model) {
      e.state = 'READY';
      e.model = r.model;
      e.loadMs = r.ms;
    } else {
      e.state = 'UNAVAILABLE';
      e.reason = r.error!.message;
      errors.push(r.error!);
    }
  }
  if (errors.length === results.length) {
    // Nothing loaded: keep what was being served before (a reload that fails changes nothing).
    for (const [v, e] of next) if (!old.get(v)?.model) old.set(v, e);
    throw versionFailures(name, results.map((r) => [r.v, r.error!] as const));
  }
  for (const [v, e] of old) if (e.model && next.get(v)?.model !== e.model) retired.push(e.model);
  entry.versions = next;
  entry.steps = steps;
  entry.fingerprint = fp;
  await Promise.all(retired.map((m) => retire(m)));
}

/** Unload after in-flight requests finish, so a reload drops nothing. */
async function retire(model: Model): Promise<void> {
  const start = Date.now();
  while (model.inflightCount() > 0 && Date.now() - start < 30_000) await new Promise((r) => setTimeout(r, 5));
  await model.unload();
}
