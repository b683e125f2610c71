import type { ModelIndexEntry } from './model-state.js';
import type { ModelTable } from './model-table.js';

/** The repository index: every model by name, each version with its state and reason. */
export function modelIndex(table: ModelTable, found: Iterable<string>, options: { ready?: boolean } = {}): ModelIndexEntry[] {
  for (const name of found) table.entry(name);
  const out: ModelIndexEntry[] = [];
  for (const entry of [...table.models.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.versions.size === 0) {
      if (!options.ready) out.push({ name: entry.name, version: '', state: 'UNAVAILABLE', reason: 'unloaded' });
      continue;
    }
    for (const e of [...entry.versions.values()].sort((a, b) => a.version - b.version)) {
      if (options.ready && e.state !== 'READY') continue;
      out.push({ name: entry.name, version: e.version === 0 ? '' : String(e.version), state: e.state, reason: e.reason });
    }
  }
  return out;
}

/**
 * The models that keep the repository from readiness: every model the server itself loads (at
 * start, by --load-model, by poll) must serve at least one version or have been unloaded. Loads
 * through the repository API never count: a client must not be able to take the server out of
 * readiness with a bad load. Each is named with its state and reason ("'a' LOADING").
 */
export function readinessBlockers(table: ModelTable): string[] {
  const out: string[] = [];
  for (const entry of table.models.values()) {
    if (!entry.blocksReadiness || table.isLoaded(entry.name)) continue;
    const v = [...entry.versions.values()][0];
    out.push(`'${entry.name}' ${v?.state ?? 'LOADING'}${v?.reason ? ` (${v.reason})` : ''}`);
  }
  return out;
}
