/**
 * `tributary serve` as a user starts it (bin/tributary.js in a child process), on 127.0.0.1
 * port 0, for the attack tests that must go through the command line's wiring of flags.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServeProcess {
  httpPort: number;
  grpcPort: number;
  /** Everything the process wrote so far (stdout and stderr). */
  log(): string;
  stop(): Promise<void>;
}

export async function spawnServe(args: readonly string[]): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--http-port', '0', '--grpc-port', '0', '--allow-metrics', 'false',
    '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const ports = await new Promise<[number, number]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not listen in 30 s:\n${out}`)), 30_000);
      const check = () => {
        const h = /HTTP \(KServe v2\) listening on 127\.0\.0\.1:(\d+)/.exec(out);
        const g = /gRPC \(inference\.GRPCInferenceService\) listening on 127\.0\.0\.1:(\d+)/.exec(out);
        if (h && g) {
          clearTimeout(timer);
          resolve([Number(h[1]), Number(g[1])]);
        }
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      void exited.then(() => { clearTimeout(timer); reject(new Error(`serve exited:\n${out}`)); });
    });
    return { httpPort: ports[0], grpcPort: ports[1], log: () => out, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
