/**
 * What the trace extension costs per request: with tracing off (level OFF, the default), at rate 1
 * TIMESTAMPS to a file (triton mode) and at rate 1 exported over OTLP/HTTP to a receiver in this
 * process (opentelemetry mode), against a server without a tracer, on the identity model in
 * process at c=1 (interleaved rounds, medians). The off path is also timed alone: the sampling
 * test every request pays when it enters the server.
 *
 *   node --import tsx bench/workloads/trace.ts [--seconds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastValueFrom, of } from 'rxjs';
import { createDataPlane } from '../../src/dataplane/index.js';
import { createLogger } from '../../src/logger.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { Tracer } from '../../src/trace/index.js';
import { closedLoop, type ClosedLoopRun } from '../lib/index.js';

const REPO = fileURLToPath(new URL('../../test/fixtures/pipelines/repo', import.meta.url));

/** ns per call of the sampling test with tracing off (what every request pays on entry). */
function offSampleNs(): number {
  const tracer = new Tracer(createLogger('trace'));
  tracer.configure({ trace_level: ['OFF'], trace_rate: '1000', trace_count: '-1', trace_file: '', log_frequency: '0', trace_mode: 'triton' }, new Map());
  const req = { model: 'ident', inputs: [] };
  const done = of();
  const infer = () => done;
  let sink = 0;
  const n = 20_000_000;
  for (let i = 0; i < 1e6; i++) sink += tracer.infer(req, infer) === done ? 1 : 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink += tracer.infer(req, infer) === done ? 1 : 0;
  const ns = Number(process.hrtime.bigint() - t0) / n;
  if (sink === 0) console.log('unreachable');
  return ns;
}

export async function runTraceBench(seconds = 3): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-trace-bench-'));
  const servers: { name: string; server: LocalServer }[] = [];
  const lines: string[] = [];
  // An OTLP/HTTP receiver that accepts and drops: the exporter's work is measured, not a collector's.
  let received = 0;
  const receiver = createHttpServer((req, res) => {
    req.on('data', (c: Buffer) => { received += c.length; });
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  try {
    const open = async (name: string, settings?: Record<string, string | string[]>) => {
      const otel = settings?.trace_mode === 'opentelemetry' ? { url, resource: {} } : undefined;
      const tracer = settings ? new Tracer(createLogger('trace'), otel) : undefined;
      const server = await createServer({ modelRepository: REPO, modelControlMode: 'explicit', loadModels: ['ident'], ...(tracer ? { tracer } : {}) });
      if (tracer) createDataPlane(server, { tracer, traceSettings: settings! });
      servers.push({ name, server });
    };
    await open('no tracer');
    await open('tracing off (level OFF)', { trace_file: join(dir, 'off.json') });
    await open('rate 1 TIMESTAMPS', { trace_file: join(dir, 'on.json'), trace_level: ['TIMESTAMPS'], trace_rate: '1' });
    await open('rate 1 opentelemetry', { trace_mode: 'opentelemetry', trace_level: ['TIMESTAMPS'], trace_rate: '1' });
    const x = createTensor('INPUT0', 'FP32', [1, 4], [1, 2, 3, 4]);
    const calls = servers.map(({ server }) => () => lastValueFrom(server.infer({ model: 'ident', inputs: [x] })));
    for (const c of calls) await closedLoop(0.5, 1, c);
    const rounds = 6;
    const runs: ClosedLoopRun[][] = calls.map(() => []);
    // Each round in the other order, so a side's place in the round (GC debt, a busy neighbour) evens out.
    for (let r = 0; r < rounds; r++) {
      const order = calls.map((_, i) => (r % 2 ? calls.length - 1 - i : i));
      for (const i of order) runs[i]!.push(await closedLoop(seconds / rounds, 1, calls[i]!));
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const perReqUs = runs.map((rs) => med(rs.map((r) => 1e6 / r.perSec)));
    for (let i = 0; i < servers.length; i++) {
      lines.push(`${servers[i]!.name}: p50 ${med(runs[i]!.map((r) => r.p50Us)).toFixed(2)} µs, ${perReqUs[i]!.toFixed(2)} µs per request (throughput), ${(perReqUs[i]! - perReqUs[0]!).toFixed(2)} µs over no tracer`);
    }
    lines.push(`sampling test with tracing off, alone: ${offSampleNs().toFixed(1)} ns per request [target < 1 µs]`);
  } finally {
    for (const s of servers) await s.server.close();
    if (received === 0) lines.push('warning: the OTLP receiver got nothing: the opentelemetry side exported no spans');
    await new Promise((resolve) => receiver.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

/** `npm run bench trace` */
export async function run(): Promise<object> {
  const lines = await runTraceBench(3);
  for (const l of lines) console.log(l);
  return { lines };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--seconds');
  for (const line of await runTraceBench(i > 0 ? Number(process.argv[i + 1]) : 3)) console.log(line);
}
