/**
 * One real server over a temporary repository whose models all load at start, with its gRPC
 * front end and (unless `http` is false) its HTTP one on 127.0.0.1 port 0: what the wire tests
 * ask the same questions of over both protocols.
 */
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import { startHttpServer, type HttpServerOptions } from '../../src/frontend/http/index.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTestClient, type TestClient } from '../frontend/grpc/grpc-client.js';
import { tempRepo, type TempRepo } from './temp-repo.js';

export interface WireServers {
  repo: TempRepo;
  server: LocalServer;
  /** `http://127.0.0.1:<port>`; empty when HTTP is off. */
  base: string;
  grpc: TestClient;
  /** Front ends, then the server, then the repository. */
  close(): Promise<void>;
}

export async function startWireServers(files: Record<string, string>, http: Omit<HttpServerOptions, 'port' | 'host'> | false = {}): Promise<WireServers> {
  const repo = tempRepo(files);
  const server = await createServer({ modelRepository: repo.dir, modelControlMode: 'explicit', loadModels: ['*'] });
  const h = http === false ? undefined : await startHttpServer(server, { port: 0, host: '127.0.0.1', ...http });
  const g = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
  const grpc = createTestClient(g.port);
  return {
    repo, server, grpc,
    base: h ? `http://127.0.0.1:${h.port}` : '',
    close: async () => {
      grpc.close();
      await g.close();
      await h?.close();
      await server.close();
      repo.remove();
    },
  };
}
