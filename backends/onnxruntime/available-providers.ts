import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';

let cached: ReadonlySet<string> | undefined;

/**
 * Execution providers usable in this process. onnxruntime-node lists the providers it was built
 * with; those not `bundled` (cuda, tensorrt) only work when their provider library was installed
 * next to the binding, which the offline install here skips.
 */
export function availableProviders(): ReadonlySet<string> {
  if (cached) return cached;
  const set = new Set<string>(['cpu']);
  const libs = providerLibraries();
  for (const b of ort.listSupportedBackends()) {
    if (b.bundled || libs.some((f) => f.includes(`providers_${b.name}`))) set.add(b.name);
  }
  cached = set;
  return set;
}

function providerLibraries(): string[] {
  try {
    const binDir = join(dirname(createRequire(import.meta.url).resolve('onnxruntime-node')), '..', 'bin');
    const found: string[] = [];
    const walk = (d: string, depth: number): void => {
      if (depth > 4 || !existsSync(d)) return;
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name), depth + 1);
        else if (e.name.startsWith('libonnxruntime_providers_')) found.push(e.name);
      }
    };
    walk(binDir, 0);
    return found;
  } catch {
    return [];
  }
}
