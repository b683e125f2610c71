import { writeFile } from 'node:fs/promises';
import { createGrpcClient, createHttpClient, type InferenceClient, type InferOptions, type Tensor } from '../client/index.js';
import { Errors } from '../errors.js';
import { PERF_HELP } from './perf-help.js';
import { parsePerfFlags, type PerfOptions } from './perf-flags.js';
import { buildInputs } from './perf-inputs.js';
import { perfSharedMemory, type PerfSharedMemory } from './perf-shared-memory.js';
import { grpcUnaryLoad, plainGrpcAddress } from './perf-grpc-unary.js';
import { measureLevel, type LevelResult, type SendOne } from './perf-measure.js';
import { formatCsv, formatLevel, formatSummary } from './perf-report.js';
import { snapshot, type ConfigStep } from './perf-stats.js';

interface ModelShape { batching: boolean; decoupled: boolean; sequence: boolean; steps: ConfigStep[] }

/** What the config says about batching, decoupling and sequences; a server without the config endpoint gets the metadata's guess. */
async function modelShape(client: InferenceClient, o: PerfOptions, firstDim: number | undefined): Promise<ModelShape> {
  try {
    const c: Record<string, unknown> = { ...await client.modelConfig(o.model, o.version) };
    const policy = c.model_transaction_policy as { decoupled?: boolean } | undefined;
    const ensemble = c.ensemble_scheduling as { step?: { model_name: string; model_version?: number | string }[] } | null | undefined;
    const steps = (ensemble?.step ?? []).map((st) => ({
      model: st.model_name, ...(Number(st.model_version ?? -1) >= 0 ? { version: String(st.model_version) } : {}),
    }));
    return { batching: Number(c.max_batch_size ?? 0) > 0, decoupled: policy?.decoupled === true, sequence: c.sequence_batching !== undefined && c.sequence_batching !== null, steps };
  } catch {
    return { batching: firstDim === -1, decoupled: false, sequence: false, steps: [] };
  }
}

/**
 * One request per call. Sequence models get a sequence per worker of --sequence-length requests
 * (start and end flags as the sequence batcher needs), with ids unique to this run; decoupled
 * models are streamed and a request ends with its last response. Plain unary gRPC requests go out
 * on perf's own lean load (perf-grpc-unary.ts), everything else through the SDK client.
 */
function sender(client: InferenceClient, o: PerfOptions, shape: ModelShape, data: Tensor[][], shm: PerfSharedMemory | undefined): { send: SendOne; close(): void } {
  let step = 0;
  const options = (at: number): InferOptions => ({ ...(o.version === undefined ? {} : { version: o.version }), ...shm?.options(at) });
  if (o.protocol === 'grpc' && !shape.sequence && !o.streaming && plainGrpcAddress(o.url)) {
    const load = grpcUnaryLoad(o.url, o.model, data, options);
    return { send: () => load.send(step++), close: () => load.close() };
  }
  const seqs = new Map<number, { id: number; n: number }>();
  let nextId = 1 + Math.floor(Math.random() * 1e9);
  const send: SendOne = async (worker) => {
    const at = step++ % data.length;
    const inputs = data[at]!;
    const opts = options(at);
    if (shape.sequence) {
      // Open loop has no workers; its requests share a few sequences, as perf_analyzer's default of 4.
      const slot = o.mode === 'concurrency' ? worker : worker % 4;
      let s = seqs.get(slot);
      if (!s || s.n >= o.sequenceLength) seqs.set(slot, (s = { id: nextId++, n: 0 }));
      opts.sequence = { id: s.id, start: s.n === 0, end: s.n === o.sequenceLength - 1 };
      s.n++;
    }
    if (o.streaming) {
      for await (const r of client.stream(o.model, inputs, opts)) void r;
    } else await client.infer(o.model, inputs, opts);
  };
  return { send, close: () => undefined };
}

const connect = (o: PerfOptions): InferenceClient => (o.protocol === 'grpc' ? createGrpcClient({ address: o.url }) : createHttpClient({ url: o.url }));

async function run(o: PerfOptions): Promise<number> {
  // Metadata, statistics and shared-memory calls on a client of their own: the load's connections
  // carry only inference requests (as perf_analyzer's do), so a server may serve them on a lane of
  // their own (Tributary's HTTP socket lane keeps a connection only while it carries nothing else).
  const client = connect(o);
  const loadClient = connect(o);
  const out = process.stdout;
  let shm: PerfSharedMemory | undefined;
  let load: { send: SendOne; close(): void } | undefined;
  try {
    const meta = await client.modelMetadata(o.model, o.version);
    const shape = await modelShape(client, o, meta.inputs[0]?.shape[0]);
    if (shape.decoupled && !o.streaming) throw Errors.cliArgsInvalid('perf', `model '${o.model}' is decoupled: add --streaming`);
    if (!shape.batching && o.batchSize > 1) throw Errors.cliFlagRefused('batch-size', String(o.batchSize), `model '${o.model}' does not batch (max_batch_size 0)`, '1');
    const data = await buildInputs(meta.inputs, shape.batching, o.batchSize, o.shapes, o.inputData);
    // The data is written to the regions once; every request then names its slots.
    if (o.sharedMemory === 'system') shm = await perfSharedMemory(client, data, meta.outputs.map((x) => x.name), o.outputSharedMemorySize);
    load = sender(loadClient, o, shape, data, shm);
    const send = load.send;
    const stats = async () => snapshot(await client.modelStatistics());
    out.write([
      '*** Measurement Settings ***',
      `  Batch size: ${o.batchSize}`,
      ...(shm ? ['  Using system shared memory for inputs and outputs'] : []),
      '  Service Kind: Triton',
      '  Using "time_windows" mode for stabilization',
      `  Stabilizing using ${o.percentile === undefined ? 'average latency' : `p${o.percentile} latency`} and throughput`,
      `  Measurement window: ${o.measurementIntervalMs} msec`,
      o.mode === 'concurrency' ? `  Using ${o.streaming ? 'streaming' : 'asynchronous'} calls for inference` : '  Using uniform distribution on request generation',
      '', '',
    ].join('\n'));
    const tty = out.isTTY === true;
    const results: LevelResult[] = [];
    for (const level of o.levels) {
      const label = o.mode === 'concurrency' ? `concurrency ${level}` : `request rate ${level}`;
      const r = await measureLevel(level, send, stats, {
        mode: o.mode, intervalMs: o.measurementIntervalMs, stability: o.stability, maxTrials: o.maxTrials, batchSize: o.batchSize,
        model: o.model, steps: shape.steps, ...(o.version === undefined ? {} : { version: o.version }), ...(o.percentile === undefined ? {} : { percentile: o.percentile }),
      }, (n, w) => {
        const line = `${label}: window ${n}/${o.maxTrials}: ${w.throughput.toFixed(1)} infer/sec, avg latency ${Math.round(w.avgUs)} usec`;
        // A terminal gets one line rewritten in place; a pipe or file gets perf_analyzer's pass lines.
        if (tty) out.write(`\r\x1b[2K${line}`);
        else out.write(`  Pass [${n}] throughput: ${w.throughput.toFixed(3)} infer/sec. Avg latency: ${Math.round(w.avgUs)} usec\n`);
      });
      if (tty) out.write('\r\x1b[2K');
      out.write(`${formatLevel(r, o.mode)}\n`);
      results.push(r);
    }
    out.write(formatSummary(results, o.mode, o.percentile));
    if (o.csvFile) await writeFile(o.csvFile, formatCsv(results, o.mode, o.verboseCsv));
    return 0;
  } finally {
    load?.close();
    await shm?.close();
    await client.close();
    await loadClient.close();
  }
}

/** `tributary perf`: perf_analyzer's load test against any KServe v2 server. */
export async function perf(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(PERF_HELP);
    return 0;
  }
  return run(parsePerfFlags(argv));
}
