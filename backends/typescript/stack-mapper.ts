import { SourceMap } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScriptBundle } from './bundle-script.js';

interface MappedStack {
  /** The stack with bundle positions replaced by source positions (file:line:col). */
  stack: string;
  /** The first frame in the model's own code ("1/model.ts:12:9"), when there is one. */
  location?: string;
}

export type StackMapper = (stack: string | undefined) => MappedStack;

const FRAME = /(file:\/\/\/model\.bundle\.js):(\d+):(\d+)/g;

/**
 * Maps isolate stack traces back through the bundle's source map. Positions inside the sandbox
 * runtime and node_modules are mapped too, but `location` prefers the author's files.
 */
export function createStackMapper(bundle: ScriptBundle, modelDir: string): StackMapper {
  const map = new SourceMap(JSON.parse(bundle.map));
  const runtimeDir = resolve(dirname(fileURLToPath(import.meta.url)), 'bls');
  const cache = new Map<string, { text: string; user: boolean }>();
  const lookup = (line: number, col: number) => {
    const key = `${line}:${col}`;
    let hit = cache.get(key);
    if (!hit) {
      const e = map.findEntry(line - 1, col - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      if (!e.originalSource) return undefined;
      const abs = resolve(bundle.sourceRoot, e.originalSource.replace(/^file:\/\//, ''));
      const inModel = !relative(modelDir, abs).startsWith('..');
      const shown = inModel ? relative(modelDir, abs) : abs.startsWith(runtimeDir) ? `tributary/bls/${relative(runtimeDir, abs)}` : abs.slice(abs.lastIndexOf(`node_modules${sep}`));
      const user = inModel && !abs.includes(`${sep}node_modules${sep}`) && !abs.endsWith('tributary-entry.ts');
      hit = { text: `${shown}:${(e.originalLine ?? 0) + 1}:${(e.originalColumn ?? 0) + 1}`, user };
      cache.set(key, hit);
    }
    return hit;
  };
  return (stack) => {
    if (!stack) return { stack: '' };
    let location: string | undefined;
    let first: string | undefined;
    const out = stack.replace(FRAME, (whole, _f, l, c) => {
      const hit = lookup(Number(l), Number(c));
      if (!hit) return whole;
      first ??= hit.text;
      if (hit.user) location ??= hit.text;
      return hit.text;
    });
    return { stack: out, location: location ?? first };
  };
}
