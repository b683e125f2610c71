/** The SDK against the real built-in `langid` pipeline (pipelines/), over HTTP and gRPC. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from '../../src/server/index.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { createGrpcClient, createHttpClient, createTensor, tensorStrings, ClientError } from '../../src/client/index.js';
import { pipelinesDir } from '../pipelines/pipeline-files.js';

let server: Server;
let http: HttpServerHandle;
let grpc: GrpcServerHandle;

before(async () => {
  server = await createServer({ modelRepository: pipelinesDir, modelControlMode: 'explicit', loadModels: ['langid'] });
  http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
});
after(async () => {
  await grpc.close();
  await http.close();
  await server.close();
});

test('langid names the language of each text, with top_k as a request parameter', async () => {
  const clients = [createHttpClient({ url: `http://127.0.0.1:${http.port}` }), createGrpcClient({ address: `127.0.0.1:${grpc.port}` })];
  const texts = ['Die Kinder spielten den ganzen Nachmittag im Garten.', 'Los niños jugaban en el jardín toda la tarde.'];
  const answers = [];
  for (const c of clients) {
    const res = await c.infer('langid', [createTensor('TEXT', 'BYTES', [2, 1], texts)], { parameters: { top_k: 2 } });
    const langs = res.output('LANGUAGE');
    const probs = res.output('PROBABILITY');
    assert.deepEqual(langs.shape, [2, 2]);
    assert.deepEqual(probs.shape, [2, 2]);
    const codes = tensorStrings(langs);
    assert.equal(codes[0], 'deu');
    assert.equal(codes[2], 'spa');
    const p = probs.data as Float32Array;
    assert.ok(p[0]! > p[1]! && p[0]! > 0.5, 'best first');
    answers.push({ codes, p: Array.from(p) });
    await assert.rejects(c.infer('langid', [createTensor('TEXT', 'BYTES', [1, 1], ['x'])], { parameters: { top_k: 0 } }),
      (e: unknown) => e instanceof ClientError && e.kind === 'INVALID_ARG' && /top_k/.test(e.message));
    await c.close();
  }
  assert.deepEqual(answers[0], answers[1], 'both transports give the same answer');
});
