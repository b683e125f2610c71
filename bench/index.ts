/**
 * `npm run bench [workload...]`: runs bench/workloads/<name>.ts (all when none named), prints each
 * report, and writes one JSON file per run to bench/results/ (git-ignored) with the machine facts
 * (CPU model, governor, Node version) perf comparisons need.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const here = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(join(here, 'workloads')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length) {
  console.error(`unknown workload(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}

function governor(): string {
  try {
    return readFileSync('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

const machine = { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, governor: governor(), node: process.version, date: new Date().toISOString() };
console.log(`# ${machine.cpu} x${machine.cores}, governor ${machine.governor}, node ${machine.node}`);
const outDir = join(here, 'results');
mkdirSync(outDir, { recursive: true });
let failed = false;
for (const name of wanted.length ? wanted : available) {
  console.log(`\n## ${name}`);
  try {
    const mod = (await import(pathToFileURL(join(here, 'workloads', `${name}.ts`)).href)) as { run?: () => Promise<object> };
    if (typeof mod.run !== 'function') throw new Error(`bench/workloads/${name}.ts does not export run(): Promise<object>`);
    const report = await mod.run();
    const file = join(outDir, `${name}-${machine.date.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify({ workload: name, machine, report }, null, 2));
    console.log(`wrote ${file}`);
  } catch (e) {
    failed = true;
    console.error(`workload ${name} failed: ${(e as Error).stack ?? e}`);
  }
}
process.exit(failed ? 1 : 0);
