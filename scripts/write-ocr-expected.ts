/**
 * Records the former `ocr` orchestrator's outputs (bench/lib/legacy-ocr.ts, read from git) for the
 * images of test/pipelines/ocr-images.ts into test/pipelines/ocr-expected.json, which the tests
 * compare the declared `ocr` pipeline against. Run once: node --import tsx scripts/write-ocr-expected.ts
 */
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from '../src/server/index.js';
import { startHttpServer } from '../src/frontend/http/index.js';
import { infer } from '../examples/pipelines/v2-fetch.js';
import { LEGACY_OCR_COMMIT, legacyOcrModel, writeRepository } from '../bench/lib/index.js';
import { ocrImages } from '../test/pipelines/ocr-images.js';

const pipelines = fileURLToPath(new URL('../pipelines', import.meta.url));
const repo = writeRepository([legacyOcrModel('ocr_legacy', 1)]);
const server = await createServer({ modelRepository: [pipelines, repo], modelControlMode: 'explicit', loadModels: ['ocr_legacy', 'ocr_det', 'ocr_rec'] });
const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
try {
  const cases: Record<string, unknown> = {};
  for (const [what, bytes] of ocrImages()) {
    const res = await infer(`http://127.0.0.1:${http.port}`, 'ocr_legacy', [{ name: 'IMAGE', datatype: 'BYTES', shape: [bytes.length, 1], bytes }]);
    cases[what] = Object.fromEntries(res.outputs.map((o) => [o.name, { shape: o.shape, data: o.data }]));
  }
  const out = fileURLToPath(new URL('../test/pipelines/ocr-expected.json', import.meta.url));
  writeFileSync(out, `${JSON.stringify({ source: `pipelines/ocr at ${LEGACY_OCR_COMMIT}`, cases }, null, 1)}\n`);
  console.log(`wrote ${out}`);
} finally {
  await http.close();
  await server.close();
  rmSync(repo, { recursive: true, force: true });
}
