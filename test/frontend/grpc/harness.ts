import { startGrpcServer, type GrpcServerHandle } from '../../../src/frontend/grpc/index.js';
import { startGrpcH2Server } from '../../../src/frontend/grpc-h2/index.js';
import type { SharedMemoryRegistry } from '../../../src/frontend/shm/index.js';
import { createFakeServer, type FakeServer } from './fake-server.js';
import { createTestClient, type TestClient } from './grpc-client.js';

export interface Harness { fake: FakeServer; grpc: GrpcServerHandle; client: TestClient; close(): Promise<void> }

/**
 * The gRPC front end under test: grpc-js, or the lean node:http2 one when
 * TRIBUTARY_GRPC_IMPL=http2 (test/frontend/grpc-h2/compat.test.ts runs this whole suite that way).
 */
export const startGrpcFrontEnd: typeof startGrpcServer = (server, options) =>
  process.env.TRIBUTARY_GRPC_IMPL === 'http2' ? startGrpcH2Server(server, options) : startGrpcServer(server, options);

/** A real gRPC server on 127.0.0.1:0 over the fake in-process server, and a client for it. */
export async function startHarness(options: { sharedMemory?: SharedMemoryRegistry; maxMessageBytes?: number } = {}): Promise<Harness> {
  const fake = createFakeServer();
  const grpc = await startGrpcFrontEnd(fake, { port: 0, host: '127.0.0.1', ...options });
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
