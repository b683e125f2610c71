/**
 * `tributary` as users run it: bin/tributary.js in a child process from the project root, either
 * to its exit or, for `serve`, until its start banner has named the ports it listens on.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(ROOT, 'bin/tributary.js');

/** `serve` on 127.0.0.1 port 0 for all three listeners; metrics bind to --http-address, as in tritonserver. */
export const LOOPBACK = ['--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1'];

export interface Exited { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Runs `tributary <args>` to its end (for commands that exit on their own); SIGKILL after timeoutMs. */
export function runTributary(args: readonly string[], timeoutMs = 30_000): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tributary ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface Served {
  http: number;
  grpc: number;
  /** NaN when metrics are off. */
  metrics: number;
  /** Everything the process wrote so far (stdout and stderr). */
  log(): string;
  /** SIGTERM (unless it already exited); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** The server's process id (to kill it without a drain, as a crash would). */
  pid: number;
}

/**
 * Starts `tributary serve <args>` and waits for its start banner (the last thing it prints once
 * every listener is up); the ports are read from the banner. The process is stopped when it does
 * not start within timeoutMs.
 */
export function startServe(args: readonly string[], timeoutMs = 30_000): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { void stop(); reject(new Error(`no start banner in ${timeoutMs / 1000} s:\n${out}`)); }, timeoutMs);
    const check = () => {
      if (!/\/v2\/health\/ready is/.test(out)) return;
      clearTimeout(timer);
      const port = (re: RegExp) => Number(re.exec(out)?.[1]);
      resolve({
        http: port(/HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/),
        grpc: port(/gRPC \(inference\.GRPCInferenceService\) listening on 127\.0\.0\.1:(\d+)/),
        metrics: port(/metrics listening on 127\.0\.0\.1:(\d+)\/metrics/),
        log: () => out,
        stop,
        pid: child.pid!,
      });
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`serve exited ${code}:\n${out}`)); });
  });
}
