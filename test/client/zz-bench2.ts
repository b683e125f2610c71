import { startClientTestServer } from './client-server.js';
import { createHttpClient, createTensor } from '../../src/client/index.js';
const t = await startClientTestServer();
const x = createTensor('INPUT0', 'FP32', [1, 16], new Float32Array(16));
const run = async (name: string, c: ReturnType<typeof createHttpClient>, opts = {}) => {
  for (let i = 0; i < 2000; i++) await c.infer('identity_fp32', [x], opts);
  const lat: number[] = [];
  for (let i = 0; i < 4000; i++) { const s = performance.now(); await c.infer('identity_fp32', [x], opts); lat.push(performance.now() - s); }
  lat.sort((a, b) => a - b);
  const t1 = performance.now(); let n = 0;
  await Promise.all(Array.from({ length: 32 }, async () => { while (performance.now() - t1 < 1500) { await c.infer('identity_fp32', [x], opts); n++; } }));
  console.log(name, 'c=1 p50 us', (lat[2000]! * 1000).toFixed(0), ' c=32 rps', (n / 1.5).toFixed(0));
};
const b = createHttpClient({ url: t.httpUrl }); const j = createHttpClient({ url: t.httpUrl, binary: false });
await run('json', j); await run('binary', b); await run('binary-in json-out', b, { outputs: [{ name: 'OUTPUT0', binary: false }] }); await run('json', j); await run('binary', b);
await t.close();
