/**
 * `tributary serve` and `tributary perf` run as users run them (bin/tributary.js), each in its own
 * process, so that a figure read from the server's CPU counters holds only the server's work.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));

export interface CliServer {
  /** HTTP and gRPC ports (0 when that front end is off). */
  http: number;
  grpc: number;
  /** The serving process first, then its replicas' (with --replicas). */
  pids: number[];
  startMs: number;
  /** Each replica's own start time, from the banner (with --replicas). */
  replicaStartMs: number[];
  stop(): Promise<number | null>;
}

/** node with `args`, held to the CPUs in `cpus` (taskset's list form) when given. */
function spawnNode(args: readonly string[], cpus: string | undefined) {
  return cpus === undefined
    ? spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('taskset', ['-c', cpus, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Start `tributary serve` on loopback with ports chosen by the system; resolves once it is ready.
 * `bin` runs another checkout's command instead (a before/after comparison in one run); `cpus`
 * holds the server to those CPUs (taskset).
 */
export function serveCli(repo: string, extra: readonly string[] = [], bin = BIN, cpus?: string): Promise<CliServer> {
  const t0 = performance.now();
  const child = spawnNode([bin, 'serve', '--model-repository', repo, '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0',
    '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1', ...extra], cpus);
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  return new Promise((resolve, reject) => {
    const check = (d: Buffer) => {
      out += d.toString();
      if (!/\/v2\/health\/ready is/.test(out)) return;
      child.stdout.off('data', check);
      child.stderr.off('data', check);
      const line = /replicas sharing[^\n]*/.exec(out)?.[0] ?? '';
      resolve({
        http: Number(/HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1] ?? 0),
        grpc: Number(/gRPC[^\n]* listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1] ?? 0),
        pids: [child.pid!, ...[...line.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]))],
        startMs: performance.now() - t0,
        replicaStartMs: [...line.matchAll(/started in (\d+) ms/g)].map((m) => Number(m[1])),
        stop: () => { child.kill('SIGTERM'); return exited; },
      });
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then((c) => reject(new Error(`tributary serve exited ${c}:\n${out}`)));
  });
}

/** Run `tributary perf` to completion; resolves with its report's throughput (infer/sec), p50 and p99 latency (µs) and whole output. */
export function perfCli(args: readonly string[], cpus?: string): Promise<{ perSec: number; p50Us: number; p99Us: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnNode([BIN, 'perf', ...args], cpus);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => {
      const m = /Throughput: ([\d,.]+) infer\/sec/.exec(out);
      if (code !== 0 || !m) reject(new Error(`tributary perf ${args.join(' ')} exited ${code}:\n${out}`));
      else {
        const latency = (p: number) => Number(new RegExp(`p${p} latency: ([\\d,]+) usec`).exec(out)?.[1]?.replace(/,/g, '') ?? NaN);
        resolve({ perSec: Number(m[1]!.replace(/,/g, '')), p50Us: latency(50), p99Us: latency(99), out });
      }
    });
  });
}
