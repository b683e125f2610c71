/**
 * `tributary perf` against a live server started here (windows of 150 ms so each run takes
 * a few seconds): windows stabilise, percentiles are ordered, the CSV header is perf_analyzer's,
 * a pipeline reports each step, and bad flags exit 2 naming the flag.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { CHAIN_CONFIG, ECHO_CONFIG, simpleConfig } from '../helpers/model-configs.js';
import { serveHttp, type HttpServed } from '../helpers/serve-http.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { quietLog } from '../helpers/quiet-log.js';
import { runTributary } from '../helpers/tributary-process.js';
import { main } from '../../src/cli/main.js';


// The example pipeline leaves OUTPUT1 unused on purpose.
quietLog([/chain\/config\.pbtxt:\d+:\d+: warning: .* is never used/]);

const PERF_HEADER = 'Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,'
  + 'Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency';

let repo: TempRepo;
let served: HttpServed;
let grpc: GrpcServerHandle;
let host: string;
// Loose stability and many windows: the machine's cores are shared, and the test checks the method, not the numbers.
const FAST = ['-p', '150', '-s', '60', '-r', '20'];

before(async () => {
  repo = tempRepo({ 'simple/config.pbtxt': simpleConfig(), 'echo/config.pbtxt': ECHO_CONFIG, 'echo/1/.keep': '', 'chain/config.pbtxt': CHAIN_CONFIG });
  repo.onnx('simple', 'simple.onnx');
  served = await serveHttp(repo.dir, ['chain']);
  grpc = await startGrpcServer(served.server, { port: 0, host: '127.0.0.1' });
  host = served.base.replace('http://', '');
});
after(async () => {
  await grpc.close();
  await served.close();
  repo.remove();
});

const perf = (args: readonly string[]) => runTributary(['perf', ...args], 60_000);
const usec = (out: string, what: string) => [...out.matchAll(new RegExp(`${what}: (\\d+) usec`, 'g'))].map((m) => Number(m[1]));

test('perf over HTTP: each concurrency stabilises in windows, percentiles are ordered, the CSV is perf_analyzer\'s', async () => {
  const csv = join(repo.dir, 'out.csv');
  const r = await perf(['-m', 'simple', '-u', host, '--concurrency-range', '1:2', '--percentile', '75', '-f', csv, ...FAST]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /WARNING: not stable/);
  assert.match(r.stdout, /Request concurrency: 1\n/);
  assert.match(r.stdout, /Request concurrency: 2\n/);
  // At least three windows per level: stability needs three in a row.
  assert.ok((r.stdout.match(/Pass \[3\]/g) ?? []).length >= 2, r.stdout);
  for (const [p50, p75, p90, p95, p99] of usec(r.stdout, 'p50 latency').map((_, i) => ['p50', 'p75', 'p90', 'p95', 'p99'].map((p) => usec(r.stdout, `${p} latency`)[i]!))) {
    assert.ok(p50! > 0 && p50! <= p75! && p75! <= p90! && p90! <= p95! && p95! <= p99!, `${p50} ${p75} ${p90} ${p95} ${p99}`);
  }
  assert.match(r.stdout, /Avg request latency: \d+ usec \(overhead \d+ usec \+ queue \d+ usec \+ compute input \d+ usec \+ compute infer [1-9]\d* usec/);
  assert.match(r.stdout, /Inferences\/Second vs\. Client p75 Batch Latency\nConcurrency: 1, throughput: [\d.]+ infer\/sec, latency \d+ usec\nConcurrency: 2,/);
  const lines = readFileSync(csv, 'utf8').trim().split('\n');
  assert.equal(lines[0], PERF_HEADER);
  assert.equal(lines.length, 3);
  for (const row of lines.slice(1)) {
    const cols = row.split(',').map(Number);
    assert.equal(cols.length, 13);
    assert.ok(cols[1]! > 0, 'throughput');
    assert.ok(cols[6]! > 0, 'server compute infer from the statistics deltas');
    assert.ok(cols[9]! <= cols[10]! && cols[10]! <= cols[11]! && cols[11]! <= cols[12]!, row);
  }
});

test('perf over gRPC on a pipeline reports each step from the step models\' statistics', async () => {
  const r = await perf(['-m', 'chain', '-u', `127.0.0.1:${grpc.port}`, '-i', 'grpc', '-b', '2', '--input-data', 'zero', ...FAST]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Batch size: 2/);
  const steps = [...r.stdout.matchAll(/Step '(\w+)' \(model (\w+)\): (\d+) calls, avg (\d+) usec \(queue \d+ usec \+ compute input \d+ usec \+ compute infer (\d+) usec/g)];
  assert.deepEqual(steps.map((m) => m[2]), ['simple', 'echo']);
  for (const m of steps) assert.ok(Number(m[3]) > 0 && Number(m[4]) > 0, m[0]);
  const count = Number(/Request count: (\d+)/.exec(r.stdout)![1]);
  assert.ok(count > 0);
  assert.match(r.stdout, new RegExp(`Successful request count: \\d+`));
});

test('perf open loop: --request-rate-range sends on a schedule, and the CSV names the rate', async () => {
  const csv = join(repo.dir, 'rate.csv');
  const data = join(repo.dir, 'data.json');
  writeFileSync(data, JSON.stringify({ data: [{ IN: { content: [1, 2, 3], shape: [3] } }] }));
  const r = await perf(['-m', 'echo', '-u', host, '--request-rate-range', '100', '--input-data', data, '-f', csv, '--verbose-csv', ...FAST]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Request Rate: 100 inference requests per seconds/);
  const tput = Number(/Throughput: ([\d.]+) infer\/sec/.exec(r.stdout)![1]);
  // A fixed schedule of 100/s: the achieved rate sits near it (wide bounds: shared cores).
  assert.ok(tput > 50 && tput < 150, String(tput));
  assert.equal(readFileSync(csv, 'utf8').split('\n')[0], PERF_HEADER.replace('Concurrency', 'Request Rate') + ',Avg latency,request/response,response wait');
});

/** `tributary perf ...` in this process (a child per case costs seconds): exit code and stderr. */
async function perfInProcess(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => { stderr += String(chunk); return true; }) as typeof write;
  try {
    return { code: await main(['perf', ...args]), stderr };
  } finally {
    process.stderr.write = write;
  }
}

test('perf refuses bad flags with exit 2 and names the flag or input', async () => {
  const bin = await perf(['--concurrency-range', '1']);
  assert.equal(bin.code, 2);
  assert.match(bin.stderr, /error: tributary perf: -m <model> is required; see 'tributary perf --help'/);
  const cases: [string[], RegExp][] = [
    [['-m', 'simple', '--concurrency-range', '4:1'], /--concurrency-range expects an end not below the start, got '4:1'/],
    [['-m', 'simple', '--concurrency-range', 'x'], /--concurrency-range expects start\[:end\[:step\]\]/],
    [['-m', 'simple', '--request-rate-range', '0'], /--request-rate-range expects start\[:end\[:step\]\] with numbers > 0, got '0'/],
    [['-m', 'simple', '-i', 'udp'], /--protocol must be 'http' or 'grpc', got 'udp'/],
    [['-m', 'simple', '--concurrency-range', '1', '--request-rate-range', '5'], /exclude each other/],
    [['-m', 'simple', '--shape', 'IN'], /--shape expects NAME:d1,d2/],
    [['-m', 'simple', '--percentile', '100'], /--percentile expects an integer from 1 to 99, got '100'/],
    [['-m', 'simple', '--bogus'], /tributary perf: Unknown option '--bogus'/],
    [['-m', 'simple', '--shared-memory', 'cuda'], /--shared-memory=cuda is refused/],
    [['-m', 'simple', '--shared-memory', 'posix'], /--shared-memory must be 'none', 'system' or 'cuda', got 'posix'/],
    // Checked against the model: a variable dim needs --shape, the shape must fit the dims, batching needs a batching model.
    [['-m', 'echo', '-u', host], /--shape expects a size for each variable dim of input 'IN'/],
    [['-m', 'simple', '-u', host, '--shape', 'INPUT0:8'], /--shape expects INPUT0:16/],
    [['-m', 'simple', '-u', host, '--shape', 'NOPE:1'], /--shape expects an input of the model \(INPUT0, INPUT1\), got 'NOPE'/],
    [['-m', 'simple', '-u', host, '--input-data', join(repo.dir, 'missing.json')], /--input-data expects .*missing\.json: ENOENT/],
  ];
  for (const [args, want] of cases) {
    const r = await perfInProcess(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, want);
  }
});
