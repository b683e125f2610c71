import { startClientTestServer } from './client-server.js';
import { createGrpcClient, createHttpClient, createTensor } from '../../src/client/index.js';
const t = await startClientTestServer();
const x = createTensor('INPUT0', 'FP32', [1, 16], new Float32Array(16));
for (const [name, c] of [['http-binary', createHttpClient({ url: t.httpUrl })], ['http-json', createHttpClient({ url: t.httpUrl, binary: false })], ['grpc', createGrpcClient({ address: t.grpcAddress })]] as const) {
  for (let i = 0; i < 2000; i++) await c.infer('identity_fp32', [x]);
  const lat: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < 5000; i++) { const s = performance.now(); await c.infer('identity_fp32', [x]); lat.push(performance.now() - s); }
  const el = performance.now() - t0;
  lat.sort((a, b) => a - b);
  // c=32
  const t1 = performance.now(); let n = 0;
  await Promise.all(Array.from({ length: 32 }, async () => { while (performance.now() - t1 < 2000) { await c.infer('identity_fp32', [x]); n++; } }));
  console.log(name, 'c=1 p50 us', (lat[2500]! * 1000).toFixed(0), 'p99', (lat[4950]! * 1000).toFixed(0), 'rps', (5000 / el * 1000).toFixed(0), ' c=32 rps', (n / 2).toFixed(0));
  await c.close();
}
await t.close();
