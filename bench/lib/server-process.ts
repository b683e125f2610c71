/** Start the server in a child process (see serve.ts) and get its HTTP and metrics URLs and gRPC port. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServeOptions, ServePorts } from './serve.js';

export interface ServerProcess {
  httpBase: string;
  metricsBase: string;
  /** The gRPC port when ServeOptions.grpc asked for the gRPC front end. */
  grpcPort?: number;
  /** With ServeOptions.routeTwins: the front ends without the direct infer paths. */
  httpRouteBase?: string;
  grpcRoutePort?: number;
  pid: number;
  close(): Promise<void>;
}

/** nodeArgs go before the entry: `['--cpu-prof', '--cpu-prof-dir=/tmp/p']` profiles the server (written when it exits). */
export function spawnServer(options: ServeOptions, taskset?: string, nodeArgs: string[] = []): Promise<ServerProcess> {
  const entry = fileURLToPath(new URL('./serve.ts', import.meta.url));
  // The server runs as `tributary serve` does, through the project's own TypeScript hooks.
  const hooks = fileURLToPath(new URL('../../bin/register-typescript.js', import.meta.url));
  const args = [...nodeArgs, '--import', hooks, entry, JSON.stringify(options)];
  const child = taskset
    ? spawn('taskset', ['-c', taskset, process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      child.stdout!.off('data', onData);
      const ports = JSON.parse(out.slice(0, nl)) as ServePorts;
      resolve({
        httpBase: `http://127.0.0.1:${ports.http}`,
        metricsBase: `http://127.0.0.1:${ports.metrics}`,
        ...(ports.grpc === undefined ? {} : { grpcPort: ports.grpc }),
        ...(ports.httpRoute === undefined ? {} : { httpRouteBase: `http://127.0.0.1:${ports.httpRoute}` }),
        ...(ports.grpcRoute === undefined ? {} : { grpcRoutePort: ports.grpcRoute }),
        pid: child.pid!,
        close: () => new Promise<void>((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.stdin!.end();
          setTimeout(() => child.kill('SIGKILL'), 5000).unref();
        }),
      });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`benchmark server exited with code ${code} before listening`)));
    child.once('error', reject);
  });
}
