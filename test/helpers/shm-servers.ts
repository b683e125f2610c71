/**
 * One real server over a temporary repository with both front ends on 127.0.0.1 port 0 sharing one
 * system shared-memory registry, as `tributary serve` has: what the shared-memory tests of the
 * client SDK and of `tributary perf` run against.
 */
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { createSharedMemoryRegistry, type SharedMemoryRegistry } from '../../src/frontend/shm/index.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { tempRepo } from './temp-repo.js';

export interface ShmServers {
  server: LocalServer;
  shm: SharedMemoryRegistry;
  httpPort: number;
  grpcPort: number;
  /** Front ends, the server, every region, then the repository. */
  close(): Promise<void>;
}

export async function startShmServers(files: Record<string, string>): Promise<ShmServers> {
  const repo = tempRepo(files);
  const server = await createServer({ modelRepository: repo.dir });
  const shm = createSharedMemoryRegistry();
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', sharedMemory: shm });
  const grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', sharedMemory: shm });
  return {
    server, shm, httpPort: http.port, grpcPort: grpc.port,
    close: async () => {
      await http.close();
      await grpc.close();
      await server.close();
      shm.unregister();
      repo.remove();
    },
  };
}
