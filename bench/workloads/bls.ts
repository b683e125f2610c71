/**
 * W5/W8-style BLS costs:
 * - the thread hop alone: a trivial isolated-vm function entered on the main thread (applySync,
 *   how scripts ran before) and on isolated-vm's pool thread (apply, how they run now), side by side;
 * - warm script call: one execute() of the `echo` script with FP32[4] in and out, measured at the
 *   backend instance (no scheduler, no server), target <= 15 us p50; with the fast path (the
 *   default fast_path_ms, execute() on the main thread) and without it (fast_path_ms 0), side by side;
 * - per child call: `bls_loop` making 64 sequential BLS calls to the identity model `ident` through
 *   the real server, (T(64) - T(0)) / 64 (target <= 50 us) and that less T(direct ident call)
 *   (target <= 20 us), with the fast path on and with fast_path_ms 0 (the isolate thread only);
 * - server-level echo p50 for context;
 * - the main loop's event-loop delay (p99) while a script spins at 100% CPU, target < 2 ms;
 * - throughput of a CPU-bound script (fixed work per request, 4 requests in flight) with
 *   instance_group count 2 over count 1, target >= 1.7x on 2 cores.
 *
 *   node --import tsx bench/workloads/bls.ts [--seconds 2]
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import ivm from '../../backends/typescript/isolated-vm.js';
import { lastValueFrom } from 'rxjs';
import { createIdentityBackend } from '../../backends/identity/index.js';
import { createTypeScriptBackend } from '../../backends/typescript/index.js';
import type { BackendRequest, ModelHost } from '../../src/backend/index.js';
import { createLogger } from '../../src/logger.js';
import { createServer, type Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { blsRepo } from '../../test/backends/typescript/bls-repo.js';
import { scriptRepo, spinModel, workModel } from '../../test/backends/typescript/script-repo.js';

interface Run { p50Us: number; p99Us: number; perSec: number }

async function measure(seconds: number, once: () => Promise<unknown>): Promise<Run> {
  for (let i = 0; i < 200; i++) await once(); // warm up
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const t0 = performance.now();
    await once();
    lat.push(performance.now() - t0);
  }
  lat.sort((a, b) => a - b);
  const at = (q: number) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))]! * 1000;
  return { p50Us: at(0.5), p99Us: at(0.99), perSec: lat.length / seconds };
}

/** The echo script's instance driven directly, with a minimal BackendRequest. */
async function warmCall(seconds: number, repo: string, fastPathMs?: string): Promise<Run> {
  const modelDir = join(repo, 'echo');
  const noHost: ModelHost = { infer: () => { throw new Error('no BLS calls in this bench'); } };
  const model = await createTypeScriptBackend().load(
    {
      name: 'echo', max_batch_size: 0, parameters: fastPathMs === undefined ? {} : { fast_path_ms: { string_value: fastPathMs } }, model_transaction_policy: { decoupled: false },
      input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [-1] }], output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [-1] }],
    } as never,
    { modelDir, versionDir: join(modelDir, '1'), version: '1', modelFile: join(modelDir, '1', 'model.ts'), host: noHost, log: createLogger('bench') },
  );
  const inst = await model.createInstance(0, { name: 'echo', kind: 'KIND_CPU', count: 1 } as never);
  const x = createTensor('IN', 'FP32', [4], [1, 2, 3, 4]);
  const signal = new AbortController().signal;
  let got = 0;
  const req: BackendRequest = {
    request: { model: 'echo', inputs: [x] }, batchSize: 1, signal,
    send: (r) => { if (r && (r.outputs[0]!.data as Float32Array)[3] === 4) got++; },
    fail: (e) => { throw e; },
  };
  const batch = [req];
  const r = await measure(seconds, async () => { await inst.execute(batch); });
  await inst.finalize();
  if (got === 0) throw new Error('echo returned nothing');
  return r;
}

/**
 * A trivial function entered synchronously vs asynchronously: the cost of leaving the loop. `issue`
 * is the part of an asynchronous entry spent inside apply() before it returns its promise: the
 * main thread hands the task to isolated-vm's thread pool under the pool's mutex and waits there.
 */
async function threadHop(seconds: number): Promise<{ sync: Run; async: Run; issue: Run }> {
  const iso = new ivm.Isolate({ memoryLimit: 16 });
  const ctx = iso.createContextSync();
  iso.compileScriptSync('globalThis.f = (x) => x + 1').runSync(ctx);
  const f = ctx.global.getSync('f', { reference: true }) as ivm.Reference;
  const sync = await measure(seconds, async () => f.applySync(undefined, [1]));
  const async = await measure(seconds, () => f.apply(undefined, [1], { timeout: 1000 }));
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const t0 = performance.now();
    const p = f.apply(undefined, [1], { timeout: 1000 });
    lat.push(performance.now() - t0);
    await p;
  }
  lat.sort((x, y) => x - y);
  const at = (q: number) => lat[Math.floor(q * lat.length)]! * 1000;
  const issue: Run = { p50Us: at(0.5), p99Us: at(0.99), perSec: lat.length / seconds };
  iso.dispose();
  return { sync, async, issue };
}

/** Event-loop delay while a script spins, and 1 vs 2 instances of a CPU-bound script. */
async function offLoop(seconds: number): Promise<string[]> {
  const repo = scriptRepo({ spin: spinModel(1), work1: workModel(1), work2: workModel(2) });
  const server = await createServer({ modelRepository: repo.dir });
  try {
    const spinMs = seconds * 1000;
    const h = monitorEventLoopDelay({ resolution: 1 });
    const spinning = lastValueFrom(server.infer({ model: 'spin', inputs: [createTensor('MS', 'INT32', [1], [spinMs])] }));
    await new Promise((res) => setTimeout(res, 20));
    h.enable();
    await spinning;
    h.disable();
    const ms = (ns: number) => (ns / 1e6).toFixed(2);
    const out = [`event-loop delay while a script spins ${spinMs} ms: p50 ${ms(h.percentile(50))} ms, p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms (target p99 < 2 ms)`];
    const n = createTensor('N', 'INT32', [1], [2_000_000]);
    const rate = async (model: string) => {
      const once = () => lastValueFrom(server.infer({ model, inputs: [n] }));
      for (let i = 0; i < 8; i++) await once();
      let count = 0;
      const end = performance.now() + seconds * 1000;
      const worker = async () => { while (performance.now() < end) { await once(); count++; } };
      await Promise.all([worker(), worker(), worker(), worker()]);
      return count / seconds;
    };
    const one = await rate('work1');
    const two = await rate('work2');
    out.push(`CPU-bound script (2M hash rounds): count 1 ${one.toFixed(1)}/s, count 2 ${two.toFixed(1)}/s, ratio ${(two / one).toFixed(2)}x (target >= 1.7x)`);
    return out;
  } finally {
    await server.close();
    repo.remove();
  }
}

export async function runBlsBench(seconds = 2): Promise<string[]> {
  const repo = await blsRepo(['echo', 'ident', 'bls_loop']);
  await cp(join(repo, 'bls_loop'), join(repo, 'bls_loop_pool'), { recursive: true });
  const config = join(repo, 'bls_loop_pool', 'config.pbtxt');
  await writeFile(config, `${(await readFile(config, 'utf8')).replace('name: "bls_loop"', 'name: "bls_loop_pool"')}\nparameters { key: "fast_path_ms" value { string_value: "0" } }\n`);
  const lines: string[] = [];
  const hop = await threadHop(seconds);
  lines.push(`trivial isolate entry: applySync (main thread) p50 ${hop.sync.p50Us.toFixed(1)} us; apply (pool thread) p50 ${hop.async.p50Us.toFixed(1)} us, p99 ${hop.async.p99Us.toFixed(1)} us, of which inside apply() p50 ${hop.issue.p50Us.toFixed(1)} us`);
  const warm = await warmCall(seconds, repo);
  const pool = await warmCall(seconds, repo, '0');
  lines.push(`warm script call (FP32[4] in/out, backend instance): fast path p50 ${warm.p50Us.toFixed(1)} us, p99 ${warm.p99Us.toFixed(1)} us, ${warm.perSec.toFixed(0)}/s; ` +
    `fast_path_ms 0 (pool thread) p50 ${pool.p50Us.toFixed(1)} us, p99 ${pool.p99Us.toFixed(1)} us (target p50 <= 15 us)`);
  const server: Server = await createServer({ modelRepository: repo, backends: [createTypeScriptBackend(), createIdentityBackend()] });
  try {
    const x = createTensor('IN', 'FP32', [1, 4], [1, 2, 3, 4]);
    const echo = await measure(seconds, () => lastValueFrom(server.infer({ model: 'echo', inputs: [createTensor('IN', 'FP32', [4], [1, 2, 3, 4])] })));
    const direct = await measure(seconds, () => lastValueFrom(server.infer({ model: 'ident', inputs: [x] })));
    lines.push(`server: echo script p50 ${echo.p50Us.toFixed(1)} us; direct ident p50 ${direct.p50Us.toFixed(1)} us`);
    // The same loop with fast_path_ms 0: every entry on the isolate thread, as continuations ran
    // before they could take the main thread. Side by side, in one server.
    const n = 64;
    for (const model of ['bls_loop', 'bls_loop_pool']) {
      const loop = (k: number) => () => lastValueFrom(server.infer({ model, inputs: [x, createTensor('N', 'INT32', [1], [k])] }));
      const zero = await measure(seconds, loop(0));
      const many = await measure(seconds, loop(n));
      const perChild = (many.p50Us - zero.p50Us) / n;
      const where = model === 'bls_loop' ? 'fast path on (continuations on the main thread when short)' : 'fast_path_ms 0 (every entry on the isolate thread)';
      lines.push(`${model}, ${where}: N=0 p50 ${zero.p50Us.toFixed(1)} us; N=${n} p50 ${many.p50Us.toFixed(1)} us; ` +
        `per child call ${perChild.toFixed(1)} us over none (target <= 50 us), ${(perChild - direct.p50Us).toFixed(1)} us over a direct in-process call (target <= 20 us)`);
    }
  } finally {
    await server.close();
  }
  lines.push(...await offLoop(seconds));
  return lines;
}

/** `npm run bench bls` */
export async function run(): Promise<object> {
  const lines = await runBlsBench(2);
  for (const l of lines) console.log(l);
  return { lines };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf('--seconds');
  const seconds = i > 0 ? Number(process.argv[i + 1]) : 2;
  for (const l of await runBlsBench(seconds)) console.log(l);
}
