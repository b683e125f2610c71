/**
 * The response cache: (1) the cost of the cache key, SHA-256 over every input byte, per MB (with
 * node:crypto's other digests beside it, for the choice); (2) a hit's latency against the model's
 * own, for the built-in sentiment pipeline, in process (server.infer) and over HTTP at c=1 (the
 * load generator shares the server's process, as in the pipelines workload), with
 * the server-side time per request from the statistics extension (success ns / count).
 * Run: npm run bench cache, or node --import tsx bench/workloads/cache.ts [seconds-per-phase] (default 2)
 */
import { createHash } from 'node:crypto';
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { requestKey } from '../../src/cache/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { createServer, inferOnce, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { closedLoop, createHttpPoster } from '../lib/index.js';

const TEXT = 'I absolutely love this film, the acting is wonderful and the story is brilliant.';
const MB = 1 << 20;

function perMbUs(mb: number, fn: () => void): number {
  for (let i = 0; i < 3; i++) fn();
  const reps = Math.max(5, Math.round(64 / mb));
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) fn();
  return ((performance.now() - t0) * 1000) / (reps * mb);
}

function hashing(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const mb of [1, 16]) {
    const f32 = createTensor('IN', 'FP32', [mb * MB / 4], new Float32Array(mb * MB / 4).map((_, i) => i));
    out[`requestKey_fp32_${mb}MB_usPerMB`] = perMbUs(mb, () => requestKey('m', '1', [f32], {}));
  }
  // BYTES in 1 KB elements: the key hashes their wire form (length prefixes), one encoding pass.
  const elems = Array.from({ length: 1024 }, (_, i) => new Uint8Array(1020).fill(i & 255));
  const bytes = createTensor('IN', 'BYTES', [elems.length], elems);
  out.requestKey_bytes_1MB_usPerMB = perMbUs(1, () => requestKey('m', '1', [bytes], {}));
  const raw = new Uint8Array(16 * MB).map((_, i) => i & 255);
  for (const alg of ['sha256', 'sha1', 'md5', 'sha512']) out[`${alg}_raw_16MB_usPerMB`] = perMbUs(16, () => createHash(alg).update(raw).digest());
  // A small request (the sentiment pipeline's one sentence): the fixed cost of a key.
  const small = createTensor('TEXT', 'BYTES', [1, 1], [TEXT]);
  const n = 20000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) requestKey('sentiment', '1', [small], {});
  out.requestKey_one_sentence_us = ((performance.now() - t0) * 1000) / n;
  return out;
}

async function sentimentRepo(cached: boolean): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'trb-bench-cache-'));
  for (const m of ['sentiment', 'sentiment_tokenize', 'sentiment_classifier', 'sentiment_label']) await cp(join('pipelines', m), join(dir, m), { recursive: true });
  if (cached) await appendFile(join(dir, 'sentiment', 'config.pbtxt'), '\nresponse_cache { enable: true }\n');
  return dir;
}

const successUs = (s: LocalServer) => {
  const st = s.modelStatistics('sentiment').model_stats[0]!.inference_stats;
  return { ns: st.success.ns, count: st.success.count, hitNs: st.cache_hit.ns, hits: st.cache_hit.count };
};

export async function run(seconds = 2): Promise<object> {
  const hash = hashing();
  console.log('key hashing (µs per MB unless named):', hash);
  const plainDir = await sentimentRepo(false);
  const cachedDir = await sentimentRepo(true);
  const plain = await createServer({ modelRepository: plainDir });
  const cached = await createServer({ modelRepository: cachedDir, responseCache: { kind: 'local', size: 64 * MB } });
  const plainHttp = await startHttpServer(plain, { port: 0, host: '127.0.0.1' });
  const cachedHttp = await startHttpServer(cached, { port: 0, host: '127.0.0.1' });
  const request = { model: 'sentiment', inputs: [createTensor('TEXT', 'BYTES', [1, 1], [TEXT])] };
  const body = Buffer.from(JSON.stringify({ inputs: [{ name: 'TEXT', datatype: 'BYTES', shape: [1, 1], data: [TEXT] }] }));
  const rows: Record<string, unknown>[] = [];
  try {
    for (const [name, server, port] of [['model (no cache)', plain, plainHttp.port], ['cache hit', cached, cachedHttp.port]] as const) {
      await closedLoop(0.3, 1, () => inferOnce(server, request)); // warm-up; fills the cache
      const before = successUs(server);
      const local = await closedLoop(seconds, 1, () => inferOnce(server, request));
      const after = successUs(server);
      const client = createHttpPoster(`http://127.0.0.1:${port}`, 4);
      const http = await closedLoop(seconds, 1, () => client.post('/v2/models/sentiment/infer', body, { 'content-type': 'application/json' }));
      client.close();
      rows.push({
        path: name,
        inProcessP50Us: local.p50Us, inProcessP99Us: local.p99Us,
        serverUsPerRequest: (after.ns - before.ns) / Math.max(after.count - before.count, 1) / 1000,
        ...(after.hits > before.hits ? { hitLookupUs: (after.hitNs - before.hitNs) / (after.hits - before.hits) / 1000 } : {}),
        httpP50Us: http.p50Us, httpP99Us: http.p99Us, httpPerSec: http.perSec,
      });
    }
  } finally {
    await plainHttp.close();
    await cachedHttp.close();
    await plain.close();
    await cached.close();
    await rm(plainDir, { recursive: true, force: true });
    await rm(cachedDir, { recursive: true, force: true });
  }
  const [m, h] = rows as { inProcessP50Us: number; serverUsPerRequest: number; httpP50Us: number }[];
  const ratios = {
    inProcessP50: m!.inProcessP50Us / h!.inProcessP50Us,
    serverSide: m!.serverUsPerRequest / h!.serverUsPerRequest,
    httpP50: m!.httpP50Us / h!.httpP50Us,
  };
  console.table(rows);
  console.log('model ÷ hit:', ratios);
  return { hash, rows, ratios };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await run(Number(process.argv[2] ?? 2));
  process.exit(0);
}
