/**
 * The import rules of docs/ARCHITECTURE.md ("Rooms": a folder's index.ts is its only door, imports
 * point one way, I/O only at the edges), checked on the real import statements of every file under
 * src/ and backends/ (tests may reach into internals and are not checked). Imports are read with TypeScript's own pre-processor (static, re-exports and dynamic
 * `import()`), so strings that merely look like imports (generated code) are not counted.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Edge { from: string; to: string; file: string; line: number; spec: string; target?: string }

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/**
 * The folder a file belongs to, for cycles: `src/frontend/http/x.ts` -> `frontend/http`,
 * `src/errors.ts` -> `errors`, `backends/onnxruntime/x.ts` -> `backends/onnxruntime`.
 */
export function folderOf(rel: string): string {
  const parts = rel.split('/');
  if (parts[0] === 'backends') return parts.length > 2 ? `backends/${parts[1]}` : 'backends';
  const inner = parts.slice(1);
  if (inner.length === 1) return inner[0]!.replace(/\.[^.]+$/, '');
  if (inner[0] === 'frontend' || inner[0] === 'protocol') return inner.length > 2 ? `${inner[0]}/${inner[1]}` : inner[0]!;
  return inner[0]!;
}

/** The layer a folder belongs to (its top-level name). */
export function layerOf(folder: string): string {
  return folder.split('/')[0]!;
}

/**
 * docs/ARCHITECTURE.md: frontend -> server -> model/repository -> pipeline/dataflow/scheduler -> backend ->
 * tensor/config -> errors. Lower rank = closer to the edge; a folder may import only folders of a
 * greater or equal rank (equal rank is allowed; the cycle check keeps such pairs one-way).
 * metrics/ and client/ are edges like frontend/; logger sits with errors (everything logs).
 * protocol/ is pure wire formats used by the edges, so it sits just below them, above server/.
 */
const RANK: Record<string, number> = {
  frontend: 0, metrics: 0, client: 0,
  protocol: 1,
  // dataplane/ owns every API operation, protocol-neutral: the front ends only translate to it.
  dataplane: 1,
  // capture/ is the edge's tap on requests (queue, sinks: files, CloudEvents, Redis) and reading it back.
  capture: 1,
  server: 2,
  model: 3, repository: 3,
  pipeline: 4, dataflow: 4, scheduler: 4,
  // experiment/ routes a request to one of an experiment's variants, as dataflow/ runs a
  // pipeline's steps: both call other models through the host the model layer gives them.
  experiment: 4,
  backend: 5,
  // cache/ is the response cache the model layer consults (local, or Redis: its one I/O).
  cache: 5,
  // trace/ samples requests and writes Triton's trace files (its one I/O); the server and the
  // data plane drive it, models fill traces in through inference/'s RequestTrace.
  trace: 5,
  tensor: 6, config: 6,
  // inference/ holds the message types every layer speaks (request, response, parameters, cancel
  // signal); it sits beside tensor/ so that protocol/, client/ and backend/ can all use them.
  inference: 6,
  // paths/ is the one confinement check for names that become paths; everything below the edges
  // that opens a file (repository, backends, shared memory) goes through it.
  paths: 6,
  errors: 7, logger: 7,
};

/** Who may import what beyond the ranks (the composition root and the command line). */
function allowedByRole(from: string, to: string): boolean | undefined {
  if (from === 'cli') return true; // cli/ may import anything
  if (to === 'cli') return false; // nothing imports the command line
  if (to === 'backends') return from === 'server' || from === 'backends'; // server/ is the composition root
  // The message types depend on tensors and errors only, so every layer can import them.
  if (from === 'inference') return to === 'tensor' || to === 'errors';
  if (from === 'backends') return to !== 'server' && RANK[to] !== undefined && RANK[to]! >= RANK.backend!;
  // dataplane/ reads JSON carried inside requests (a load's `config`) with the protocol's depth bound.
  // capture/ writes tensors as v2 JSON does (its records, CloudEvents bodies).
  if (to === 'protocol') return from === 'frontend' || from === 'client' || from === 'protocol' || from === 'dataplane' || from === 'capture';
  return undefined;
}

function readEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of [...sourceFiles('src'), ...sourceFiles('backends')]) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const info = ts.preProcessFile(text, true, true);
    for (const imp of info.importedFiles) {
      const line = text.slice(0, imp.pos).split('\n').length;
      const spec = imp.fileName;
      if (spec.startsWith('.')) {
        const target = relative(ROOT, resolve(ROOT, dirname(file), spec)).split('\\').join('/');
        if (!target.startsWith('src/') && !target.startsWith('backends/')) continue;
        edges.push({ from: folderOf(file), to: folderOf(target), file, line, spec, target });
      } else {
        edges.push({ from: folderOf(file), to: `pkg:${spec}`, file, line, spec });
      }
    }
  }
  return edges;
}

const EDGES = readEdges();

/**
 * The door an import into another folder must use, or undefined when `target` is acceptable: a
 * folder's `index.ts` (`src/<folder>/index.ts`, `backends/<name>/index.ts`); a single-file room at
 * the top of src/ (errors.ts, logger.ts) is its own door. Paths are relative to the repository.
 */
export function missedDoor(fromFile: string, target: string): string | undefined {
  const folder = folderOf(target);
  if (folderOf(fromFile) === folder) return undefined;
  const top = target.split('/');
  if (top.length === 2) return undefined;
  const door = `${folder.startsWith('backends/') ? folder : `src/${folder}`}/index`;
  return target.replace(/\.(m?[jt]s)$/, '') === door ? undefined : `${door}.js`;
}

/** Every elementary cycle's representative: for each strongly connected component, one cycle path. */
export function findFolderCycles(edges: readonly { from: string; to: string }[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.to.startsWith('pkg:') || e.from === e.to) continue;
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    if (!graph.has(e.to)) graph.set(e.to, new Set());
    graph.get(e.from)!.add(e.to);
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const sccs: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v)!) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) sccs.push(comp);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  // Name one concrete cycle per component: shortest path back to its smallest member.
  return sccs.map((comp) => {
    const members = new Set(comp);
    const start = [...comp].sort()[0]!;
    const prev = new Map<string, string>();
    const queue = [start];
    const seen = new Set([start]);
    while (queue.length) {
      const v = queue.shift()!;
      for (const w of [...graph.get(v)!].sort()) {
        if (!members.has(w)) continue;
        if (w === start) {
          const path = [v];
          while (path[0] !== start) path.unshift(prev.get(path[0]!)!);
          return [...path, start];
        }
        if (!seen.has(w)) {
          seen.add(w);
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    return [...comp, comp[0]!];
  });
}

const where = (e: Edge) => `${e.file}:${e.line} imports '${e.spec}'`;

test('the import scan sees the code base (guards the checks below against reading nothing)', () => {
  assert.ok(EDGES.length > 200, `only ${EDGES.length} imports found`);
  assert.ok(EDGES.some((e) => e.from === 'server' && e.to === 'repository'));
  assert.ok(EDGES.some((e) => e.from === 'backends/onnxruntime' && e.to === 'pkg:onnxruntime-node'));
  assert.ok(EDGES.some((e) => e.from === 'protocol' && e.to === 'inference' && e.target === 'src/inference/index.js'));
});

test('the cycle finder names a cycle and ignores one-way chains', () => {
  assert.deepEqual(findFolderCycles([{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }]), []);
  assert.deepEqual(findFolderCycles([{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'a' }, { from: 'c', to: 'd' }]), [['a', 'b', 'c', 'a']]);
});

test('the door check accepts index.ts and single-file rooms and names the door of anything else', () => {
  assert.equal(missedDoor('src/server/create-server.ts', 'src/model/index.js'), undefined);
  assert.equal(missedDoor('src/server/create-server.ts', 'src/errors.js'), undefined);
  assert.equal(missedDoor('src/client/grpc/x.ts', 'src/client/types.js'), undefined);
  assert.equal(missedDoor('src/server/types.ts', 'src/model/statistics.js'), 'src/model/index.js');
  assert.equal(missedDoor('src/protocol/grpc/x.ts', 'src/protocol/request-limits.js'), 'src/protocol/index.js');
  assert.equal(missedDoor('src/frontend/http/x.ts', 'src/frontend/shm/y.js'), 'src/frontend/shm/index.js');
  assert.equal(missedDoor('src/cli/x.ts', 'backends/typescript/scaffold.js'), 'backends/typescript/index.js');
});

test("imports between folders go through the folder's index.ts", () => {
  const bad: string[] = [];
  for (const e of EDGES) {
    if (e.target === undefined) continue;
    const door = missedDoor(e.file, e.target);
    if (door !== undefined) bad.push(`${where(e)}: import it from ${door} (export it there if needed)`);
  }
  assert.deepEqual(bad, [], bad.join('\n'));
});

test('no import cycles between folders', () => {
  const cycles = findFolderCycles(EDGES);
  const explain = cycles.map((c) => {
    const steps = c.slice(1).map((to, i) => {
      const e = EDGES.find((x) => x.from === c[i] && x.to === to)!;
      return `  ${c[i]} -> ${to} (${where(e)})`;
    });
    return `cycle ${c.join(' -> ')}:\n${steps.join('\n')}`;
  });
  assert.deepEqual(explain, [], explain.join('\n'));
});

test('imports point one way: frontend -> server -> model/repository -> pipeline/dataflow/scheduler -> backend -> tensor/config -> errors', () => {
  const bad: string[] = [];
  for (const e of EDGES) {
    if (e.to.startsWith('pkg:')) continue;
    const from = layerOf(e.from);
    const to = layerOf(e.to);
    if (from === to) continue;
    const role = allowedByRole(from, to);
    if (role === true) continue;
    if (role === false) {
      bad.push(`${where(e)}: ${from}/ may not import ${to}/`);
      continue;
    }
    const rf = RANK[from];
    const rt = RANK[to];
    if (rf === undefined || rt === undefined) {
      bad.push(`${where(e)}: folder '${from === undefined || rf === undefined ? from : to}' has no place in the layering (add it to docs/ARCHITECTURE.md and this test)`);
    } else if (rt < rf) {
      bad.push(`${where(e)}: ${from}/ is below ${to}/ in the layering, so it may not import it`);
    }
  }
  assert.deepEqual(bad, [], bad.join('\n'));
});

const IO_LIBRARIES = new Set([
  'fastify', '@grpc/grpc-js', '@grpc/proto-loader', 'onnxruntime-node', 'isolated-vm', 'prom-client',
  'fs', 'fs/promises', 'node:fs', 'node:fs/promises', 'net', 'node:net', 'ioredis',
]);
const IO_FOLDERS = new Set(['frontend', 'repository', 'metrics', 'cli', 'client', 'backends', 'paths', 'cache', 'trace', 'capture']);

test('I/O libraries only at the edges (frontend/, repository/, metrics/, cli/, client/, backends/, paths/)', () => {
  const bad = EDGES
    .filter((e) => e.to.startsWith('pkg:') && IO_LIBRARIES.has(e.spec) && !IO_FOLDERS.has(layerOf(e.from)))
    .map((e) => `${where(e)}: ${layerOf(e.from)}/ must stay free of I/O (docs/ARCHITECTURE.md: I/O only at the edges)`);
  assert.deepEqual(bad, [], bad.join('\n'));
});
