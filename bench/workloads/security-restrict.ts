/**
 * The cost of access control (--http-restricted-api / --grpc-restricted-protocol) per request.
 *   1. The check itself: SHA-256 of the presented header value and timingSafeEqual against the
 *      expected digest (right value, wrong value of the same and of another length, missing).
 *   2. The gRPC guard as a call sees it: method -> category lookup, metadata read, check.
 *   3. HTTP in process (fastify inject, no sockets): GET /v2/health/live on an open server and on
 *      one where health is restricted (request carrying the right header), requests alternated;
 *      the difference is the route-level onRequest hook plus the check. Inject costs tens of
 *      microseconds per request, so this figure is noisy next to (1); it shows nothing else grew.
 * Target: under 1 µs per check.
 *
 *   node --import tsx bench/workloads/security-restrict.ts      (or: npm run bench security-restrict)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildHttpApp } from '../../src/frontend/http/index.js';
import { grpcGuard, headerMatches, parseRestrictions } from '../../src/frontend/restrict/index.js';
import { createServer } from '../../src/server/index.js';

const SECRET = 'f3b1c2d4e5a697881726354433221100';
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median ns per call of `f` over `rounds` rounds of `n` calls. */
function nsPerCall(f: () => unknown, n = 200_000, rounds = 7): number {
  for (let i = 0; i < n / 4; i++) f();
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) f();
    per.push(Number(process.hrtime.bigint() - t0) / n);
  }
  return med(per);
}

async function injectUsPerRequest(seconds: number): Promise<{ open: number; restricted: number }> {
  const repo = mkdtempSync(join(tmpdir(), 'tributary-bench-restrict-'));
  const server = await createServer({ modelRepository: repo });
  const open = buildHttpApp(server);
  const restricted = buildHttpApp(server, { restrictions: parseRestrictions('http-restricted-api', [`health:x-admin-key=${SECRET}`]) });
  try {
    await open.ready();
    await restricted.ready();
    const probe = await restricted.inject({ method: 'GET', url: '/v2/health/live', headers: { 'x-admin-key': SECRET } });
    const refused = await restricted.inject({ method: 'GET', url: '/v2/health/live' });
    if (probe.statusCode !== 200 || refused.statusCode !== 403) throw new Error(`restriction not in effect: ${probe.statusCode} / ${refused.statusCode}`);
    // Paired and alternating: each iteration times one request on each app, in turn order, so
    // load from other processes on a shared box hits both sides alike.
    const headers = { 'x-admin-key': SECRET };
    const once = async (app: typeof open) => {
      const t0 = process.hrtime.bigint();
      await app.inject({ method: 'GET', url: '/v2/health/live', headers });
      return Number(process.hrtime.bigint() - t0) / 1000;
    };
    const a: number[] = [];
    const b: number[] = [];
    const end = performance.now() + seconds * 1000;
    for (let i = 0; performance.now() < end; i++) {
      if (i % 2) { a.push(await once(open)); b.push(await once(restricted)); } else { b.push(await once(restricted)); a.push(await once(open)); }
    }
    a.splice(0, 500); // warm-up
    b.splice(0, 500);
    return { open: med(a), restricted: med(b) };
  } finally {
    await open.close();
    await restricted.close();
    await server.close();
    rmSync(repo, { recursive: true, force: true });
  }
}

export async function run(): Promise<object> {
  const table = parseRestrictions('grpc-restricted-protocol', [`inference,model-repository:admin-key=${SECRET}`]);
  const r = table.get('inference')!;
  const wrongSame = SECRET.replace(/.$/, '0');
  const check = {
    rightValueNs: nsPerCall(() => headerMatches(r, SECRET)),
    wrongValueSameLengthNs: nsPerCall(() => headerMatches(r, wrongSame)),
    wrongValueOtherLengthNs: nsPerCall(() => headerMatches(r, 'short')),
    missingNs: nsPerCall(() => headerMatches(r, undefined)),
  };
  const guard = grpcGuard(table);
  const metadata = new Map<string, string[]>([[r.key, [SECRET]]]);
  const grpc = {
    restrictedMethodNs: nsPerCall(() => guard('ModelInfer', (k) => metadata.get(k))),
    openMethodNs: nsPerCall(() => guard('ServerLive', (k) => metadata.get(k))),
  };
  const http = await injectUsPerRequest(Number(process.env.BENCH_SECONDS ?? 4));
  const lines = [
    `check: right value ${check.rightValueNs.toFixed(0)} ns, wrong value (same length) ${check.wrongValueSameLengthNs.toFixed(0)} ns, `
      + `wrong value (other length) ${check.wrongValueOtherLengthNs.toFixed(0)} ns, no header ${check.missingNs.toFixed(0)} ns [target < 1000 ns]`,
    `gRPC guard: restricted method ${grpc.restrictedMethodNs.toFixed(0)} ns, open method ${grpc.openMethodNs.toFixed(0)} ns`,
    `HTTP inject GET /v2/health/live: open ${http.open.toFixed(2)} µs/req, restricted (right header) ${http.restricted.toFixed(2)} µs/req, `
      + `difference ${(http.restricted - http.open).toFixed(2)} µs (medians of alternated requests)`,
  ];
  for (const l of lines) console.log(l);
  return { check, grpc, http, lines };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
