/**
 * Closing the gRPC front end closes every connection, also one whose client reads nothing and never
 * closes its side: on Node 24 a closed HTTP/2 session waits for its peer to close the socket, which
 * such a client never does, and the socket would hold the process open.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startGrpcServer, type GrpcServerHandle } from '../../../src/frontend/grpc/index.js';
import { StreamBudget } from '../../../src/frontend/stream/index.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { neverReadingStream, senderRepo, senderRequest } from '../../helpers/stream-senders.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { until } from './harness.js';

let repo: TempRepo;
let server: Server;
let grpc: GrpcServerHandle;
const budget = new StreamBudget();

before(async () => {
  repo = senderRepo();
  server = await createServer({ modelRepository: repo.dir });
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', streamBudget: budget });
});
after(async () => {
  await server.close();
  repo.remove();
});

test('close() ends the connection of a client that never reads, with the script waiting on it', async () => {
  const stuck = neverReadingStream(grpc.port, senderRequest('await_sender', 20_000, 256));
  try {
    await until(() => budget.figures.grpc.paused === 1, 20_000);
    let closed = false;
    void stuck.closed.then(() => { closed = true; });
    await grpc.close(100);
    await until(() => closed, 5000).catch(() => assert.fail('the client\'s connection was still open 5 s after close()'));
    await until(() => budget.bytes === 0, 5000);
  } finally {
    stuck.cancel();
  }
});
