import { startGrpcServer, type GrpcServerHandle, type GrpcServerOptions } from '../../../src/frontend/grpc/index.js';
import { createFakeServer, type FakeServer } from './fake-server.js';
import { createTestClient, type TestClient } from './grpc-client.js';

export interface Harness { fake: FakeServer; grpc: GrpcServerHandle; client: TestClient; close(): Promise<void> }

/** A real gRPC server on 127.0.0.1:0 over the fake in-process server, and a client for it. */
export async function startHarness(options: Omit<GrpcServerOptions, 'port' | 'host'> = {}): Promise<Harness> {
  const fake = createFakeServer();
  const grpc = await startGrpcServer(fake, { port: 0, host: '127.0.0.1', ...options });
  const client = createTestClient(grpc.port);
  return {
    fake, grpc, client,
    async close() {
      client.close();
      await grpc.close();
    },
  };
}

/** Wait until `cond` holds (polling the event loop), failing after `ms`. */
export async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
