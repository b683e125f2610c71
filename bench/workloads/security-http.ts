/**
 * Decompression bombs over HTTP: the peak RSS of a server process (the default
 * --http-max-input-size, 64 MiB) while it refuses gzip and deflate bodies of ~1 MB that inflate to
 * 1 GiB each, one at a time and BENCH_BOMB_CONCURRENCY (default 4) at once, next to its RSS at rest.
 * The peak is the kernel's high-water mark (VmHWM), reset after warm-up through /proc/<pid>/clear_refs
 * and cross-checked by sampling VmRSS every 5 ms. Each refusal must be a 413; the report gives the
 * time to refuse and the growth over rest, which should follow the input limit, not the bomb.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { deflateBomb, gzipBomb } from '../../test/helpers/compression-bomb.js';
import { spawnServer, writeRepository } from '../lib/index.js';

const BOMB_MIB = 1024;
const SEQUENTIAL = 5;
const CONCURRENT = Number(process.env.BENCH_BOMB_CONCURRENCY ?? 4);
const INFER = '/v2/models/identity_fp32/infer';
const MIB = 2 ** 20;

const CONFIG = [
  'name: "identity_fp32"', 'backend: "identity"', 'max_batch_size: 8',
  'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]',
  'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]', '',
].join('\n');

/** A /proc/<pid>/status field in MiB (VmRSS, VmHWM). */
function statusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

/** Reset the high-water mark to the current RSS (Linux >= 4.0); false where that is not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function post(base: string, body: Buffer, headers: Record<string, string | number>): Promise<{ status: number; ms: number }> {
  const url = new URL(base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request({
      host: url.hostname, port: url.port, path: INFER, method: 'POST', agent: false,
      headers: { 'content-length': body.byteLength, ...headers },
    }, (res) => {
      answered = true;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    // The server stops reading a refused body; a write failing after the answer is expected.
    req.on('error', (e) => { if (!answered) reject(e); });
    req.end(body);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<object> {
  const repo = writeRepository([{ name: 'identity_fp32', config: CONFIG }]);
  const child = await spawnServer({ modelRepository: repo });
  const bombs = { gzip: gzipBomb(BOMB_MIB), deflate: deflateBomb(BOMB_MIB) };
  let sampled = 0;
  const sampler = setInterval(() => { sampled = Math.max(sampled, statusMiB(child.pid, 'VmRSS')); }, 5);
  try {
    const good = Buffer.from(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: Array(16).fill(1) }] }));
    for (let i = 0; i < 50; i++) {
      const r = await post(child.httpBase, good, { 'content-type': 'application/json' });
      if (r.status !== 200) throw new Error(`warm-up request answered ${r.status}`);
    }
    await new Promise((r) => setTimeout(r, 200));
    const restMiB = statusMiB(child.pid, 'VmRSS');
    const hwmReset = resetPeak(child.pid);
    sampled = restMiB;

    const results: Record<string, { sizeMB: number; statuses: number[]; msMedian: number; msMax: number }> = {};
    const record = (name: string, size: number, rs: { status: number; ms: number }[]) => {
      const bad = rs.filter((r) => r.status !== 413);
      if (bad.length) throw new Error(`${name}: expected 413, got ${bad.map((r) => r.status).join(', ')}`);
      results[name] = { sizeMB: Number((size / 1e6).toFixed(2)), statuses: rs.map((r) => r.status), msMedian: median(rs.map((r) => r.ms)), msMax: Math.max(...rs.map((r) => r.ms)) };
    };
    const peak = () => Math.max(sampled, hwmReset ? statusMiB(child.pid, 'VmHWM') : 0);
    for (const [enc, bomb] of Object.entries(bombs)) {
      const rs = [];
      for (let i = 0; i < SEQUENTIAL; i++) rs.push(await post(child.httpBase, bomb, { 'content-encoding': enc }));
      record(`${enc} x${SEQUENTIAL} one at a time`, bomb.byteLength, rs);
    }
    const sequentialPeakMiB = peak();
    for (const [enc, bomb] of Object.entries(bombs)) {
      record(`${enc} x${CONCURRENT} at once`, bomb.byteLength,
        await Promise.all(Array.from({ length: CONCURRENT }, () => post(child.httpBase, bomb, { 'content-encoding': enc }))));
    }
    const after = await post(child.httpBase, good, { 'content-type': 'application/json' });
    if (after.status !== 200) throw new Error(`after the bombs a good request answered ${after.status}`);
    const peakMiB = peak();
    const afterMiB = statusMiB(child.pid, 'VmRSS');
    const report = {
      bomb: `~1 MB compressed, ${BOMB_MIB} MiB inflated`,
      maxInputSizeMiB: 64,
      restMiB: Number(restMiB.toFixed(1)),
      peakMiB: Number(peakMiB.toFixed(1)),
      growthMiB: Number((peakMiB - restMiB).toFixed(1)),
      oneAtATimePeakMiB: Number(sequentialPeakMiB.toFixed(1)),
      afterMiB: Number(afterMiB.toFixed(1)),
      peakFrom: hwmReset ? 'VmHWM after clear_refs, and 5 ms VmRSS samples' : '5 ms VmRSS samples',
      refusals: results,
    };
    console.log(`RSS at rest ${report.restMiB} MiB; peak ${report.oneAtATimePeakMiB} MiB refusing bombs of ${BOMB_MIB} MiB one at a time, `
      + `${report.peakMiB} MiB (+${report.growthMiB}) with ${CONCURRENT} at once; ${report.afterMiB} MiB after`);
    for (const [name, r] of Object.entries(results)) console.log(`  ${name.padEnd(28)} 413 in ${r.msMedian.toFixed(0)} ms (max ${r.msMax.toFixed(0)})`);
    return report;
  } finally {
    clearInterval(sampler);
    await child.close();
    rmSync(repo, { recursive: true, force: true });
  }
}
