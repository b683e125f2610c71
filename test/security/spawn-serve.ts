/**
 * `tributary serve` as a user starts it (bin/tributary.js in a child process), on 127.0.0.1
 * port 0, for the attack tests that must go through the command line's wiring of flags.
 */
import { startServe } from '../helpers/tributary-process.js';

export interface ServeProcess {
  httpPort: number;
  grpcPort: number;
  /** Everything the process wrote so far (stdout and stderr). */
  log(): string;
  stop(): Promise<void>;
}

export async function spawnServe(args: readonly string[]): Promise<ServeProcess> {
  const s = await startServe(['--http-port', '0', '--grpc-port', '0', '--allow-metrics', 'false',
    '--http-address', '127.0.0.1', '--grpc-address', '127.0.0.1', ...args]);
  return { httpPort: s.http, grpcPort: s.grpc, log: s.log, stop: async () => { await s.stop(); } };
}
