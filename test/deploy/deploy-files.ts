/**
 * Reading the deployment artifacts for the tests: every YAML manifest under deploy/ (each document
 * parsed with the project's `yaml` package), serve's default ports from the flag table, a
 * container's `tributary serve` arguments parsed as serve parses them, and which container tools
 * are usable here.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { SERVE_FLAGS } from '../../src/cli/serve-flags.js';
import { serveFlagSpec } from '../../src/cli/serve-help.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Manifests are untyped YAML: the tests read fields by path and assert on what they find.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Doc = any;

export interface Manifest { file: string; doc: Doc }

/** Every document of every .yaml file under deploy/, in file order; a YAML error throws with its file. */
export function manifests(dir = join(ROOT, 'deploy')): Manifest[] {
  const out: Manifest[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { out.push(...manifests(p)); continue; }
    if (!name.endsWith('.yaml') && !name.endsWith('.yml')) continue;
    const file = relative(ROOT, p);
    for (const d of parseAllDocuments(readFileSync(p, 'utf8'))) {
      if (d.errors.length) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
      const doc: Doc = d.toJS();
      if (doc !== null) out.push({ file, doc });
    }
  }
  return out;
}

export function findKind(all: readonly Manifest[], kind: string, name?: string): Doc[] {
  return all.filter((m) => m.doc.kind === kind && (name === undefined || m.doc.metadata?.name === name)).map((m) => m.doc);
}

/** serve's default for a port flag, from the one flag table (what `tributary serve` listens on). */
export function defaultPort(flag: 'http-port' | 'grpc-port' | 'metrics-port'): number {
  const f = SERVE_FLAGS.find((x) => x.name === flag);
  if (f?.default === undefined) throw new Error(`--${flag} has no default in SERVE_FLAGS`);
  return Number(f.default);
}

export const DEFAULT_EXIT_TIMEOUT_SECS = Number(SERVE_FLAGS.find((x) => x.name === 'exit-timeout-secs')!.default);

/** `tributary serve ARGS...` -> the parsed flags, strictly (an unknown flag throws, as serve exits 2). */
export function serveArgs(argv: readonly string[]): Record<string, string | boolean | (string | boolean)[] | undefined> {
  const i = argv.indexOf('serve');
  if (argv[0] !== 'tributary' || i !== 1) throw new Error(`not a 'tributary serve' command: ${argv.join(' ')}`);
  return parseArgs({ args: argv.slice(2) as string[], options: serveFlagSpec(), strict: true, allowPositionals: false }).values;
}

/** The first of docker, podman, buildah that can build here (a CLI whose daemon answers), or why none. */
export function containerBuilder(): { tool: string } | { none: string } {
  const tried: string[] = [];
  for (const [tool, probe] of [['docker', ['info']], ['podman', ['info']], ['buildah', ['version']]] as const) {
    const r = spawnSync(tool, probe, { encoding: 'utf8', timeout: 20_000 });
    if (r.error) { tried.push(`${tool}: not installed`); continue; }
    if (r.status === 0) return { tool };
    tried.push(`${tool}: installed but '${tool} ${probe.join(' ')}' failed (${(r.stderr || r.stdout).trim().split('\n').pop()})`);
  }
  return { none: `no container builder usable here (${tried.join('; ')})` };
}

/** Whether a command runs here (`kubectl version --client`, `helm version`). */
export function hasTool(tool: string, args: readonly string[]): boolean {
  const r = spawnSync(tool, args, { encoding: 'utf8', timeout: 20_000 });
  return !r.error && r.status === 0;
}
