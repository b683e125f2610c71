import { Errors } from '../errors.js';
import { intFlag, parseFlags } from './flags.js';

/** One `tributary perf` run, as perf_analyzer's flags describe it. */
export interface PerfOptions {
  model: string;
  version?: string;
  url: string;
  protocol: 'http' | 'grpc';
  /** Closed loop (concurrency) or open loop (requests per second), as a list of levels. */
  mode: 'concurrency' | 'request-rate';
  levels: number[];
  batchSize: number;
  shapes: Map<string, number[]>;
  inputData: 'random' | 'zero' | { file: string };
  measurementIntervalMs: number;
  /** A fraction: 10 on the command line is 0.1. */
  stability: number;
  maxTrials: number;
  percentile?: number;
  csvFile?: string;
  verboseCsv: boolean;
  streaming: boolean;
  sequenceLength: number;
  /** `system`: inputs and outputs in registered POSIX shared-memory regions instead of the messages. */
  sharedMemory: 'none' | 'system';
  /** Bytes of shared memory per output (perf_analyzer's --output-shared-memory-size). */
  outputSharedMemorySize: number;
  help: boolean;
}

const PERF_FLAGS = {
  'model-name': { type: 'string', short: 'm' },
  'model-version': { type: 'string', short: 'x' },
  url: { type: 'string', short: 'u' },
  protocol: { type: 'string', short: 'i' },
  'concurrency-range': { type: 'string' },
  'request-rate-range': { type: 'string' },
  'batch-size': { type: 'string', short: 'b' },
  shape: { type: 'string', multiple: true },
  'input-data': { type: 'string' },
  // perf_analyzer's -p is the window length (--percentile has no short form).
  'measurement-interval': { type: 'string', short: 'p' },
  'stability-percentage': { type: 'string', short: 's' },
  'max-trials': { type: 'string', short: 'r' },
  percentile: { type: 'string' },
  'latency-report-file': { type: 'string', short: 'f' },
  'verbose-csv': { type: 'boolean' },
  streaming: { type: 'boolean' },
  'sequence-length': { type: 'string' },
  'shared-memory': { type: 'string' },
  'output-shared-memory-size': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `start:end:step` as perf_analyzer reads it: a missing end means start only, a missing step is 1.
 * Request rates may be fractional; concurrencies are integers >= 1.
 */
function parseRange(flag: string, text: string, integer: boolean): number[] {
  const parts = text.split(':');
  const nums = parts.map(Number);
  const bad = parts.length > 3 || parts.some((p) => p.trim() === '') || nums.some((n) => !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)));
  if (bad) throw Errors.cliFlagExpects(flag, `start[:end[:step]] with ${integer ? 'integers' : 'numbers'} > 0`, text);
  const [start, end = start, step = 1] = nums as [number, number?, number?];
  if (end < start) throw Errors.cliFlagExpects(flag, 'an end not below the start', text);
  const out: number[] = [];
  // Rounded so that 0.1 steps do not drift past the end.
  for (let v = start; v <= end + 1e-9; v = Math.round((v + step) * 1e9) / 1e9) out.push(v);
  if (out.length > 1000) throw Errors.cliFlagExpects(flag, 'at most 1000 levels', text);
  return out;
}

/** `NAME:d1,d2,...`: the shape of an input without its batch dimension (perf_analyzer's --shape). */
function parseShape(text: string): [string, number[]] {
  const at = text.lastIndexOf(':');
  const dims = at > 0 ? text.slice(at + 1).split(',').map((d) => Number(d)) : [];
  if (at <= 0 || dims.length === 0 || dims.some((d) => !Number.isInteger(d) || d < 0)) {
    throw Errors.cliFlagExpects('shape', 'NAME:d1,d2,... with integer dims >= 0', text);
  }
  return [text.slice(0, at), dims];
}

export function parsePerfFlags(argv: readonly string[]): PerfOptions {
  const { values: v, positionals } = parseFlags('perf', argv, PERF_FLAGS);
  if (positionals.length > 0) throw Errors.cliArgsInvalid('perf', `unexpected argument '${positionals[0]}'`);
  const help = v.help === true;
  if (!help && v['model-name'] === undefined) throw Errors.cliArgsInvalid('perf', '-m <model> is required');
  const protocol = String(v.protocol ?? 'http').toLowerCase();
  if (protocol !== 'http' && protocol !== 'grpc') throw Errors.cliFlagChoice('protocol', "'http' or 'grpc'", String(v.protocol));
  if (v['concurrency-range'] !== undefined && v['request-rate-range'] !== undefined) {
    throw Errors.cliArgsInvalid('perf', '--concurrency-range and --request-rate-range exclude each other: give one');
  }
  const rate = v['request-rate-range'] !== undefined;
  const levels = rate
    ? parseRange('request-rate-range', String(v['request-rate-range']), false)
    : parseRange('concurrency-range', String(v['concurrency-range'] ?? '1'), true);
  const shm = String(v['shared-memory'] ?? 'none');
  if (shm === 'cuda') throw Errors.cliFlagRefused('shared-memory', shm, 'this client has no GPU to hold CUDA shared memory', "'none' or 'system'");
  if (shm !== 'none' && shm !== 'system') throw Errors.cliFlagChoice('shared-memory', "'none', 'system' or 'cuda'", shm);
  const data = String(v['input-data'] ?? 'random');
  const percentile = v.percentile === undefined ? undefined : intFlag('percentile', v.percentile, 0, 1, 99);
  const stabilityPct = Number(v['stability-percentage'] ?? 10);
  if (!(stabilityPct > 0 && stabilityPct <= 100)) throw Errors.cliFlagExpects('stability-percentage', 'a number above 0 and at most 100', String(v['stability-percentage']));
  const streaming = v.streaming === true;
  return {
    model: String(v['model-name'] ?? ''),
    ...(v['model-version'] === undefined ? {} : { version: String(v['model-version']) }),
    url: String(v.url ?? (protocol === 'grpc' ? 'localhost:8001' : 'localhost:8000')),
    protocol,
    mode: rate ? 'request-rate' : 'concurrency',
    levels,
    batchSize: intFlag('batch-size', v['batch-size'], 1, 1),
    shapes: new Map((v.shape as string[] | undefined ?? []).map(parseShape)),
    inputData: data === 'random' || data === 'zero' ? data : { file: data },
    measurementIntervalMs: intFlag('measurement-interval', v['measurement-interval'], 5000, 1),
    stability: stabilityPct / 100,
    maxTrials: intFlag('max-trials', v['max-trials'], 10, 3),
    ...(percentile === undefined ? {} : { percentile }),
    ...(v['latency-report-file'] === undefined ? {} : { csvFile: String(v['latency-report-file']) }),
    verboseCsv: v['verbose-csv'] === true,
    streaming,
    sequenceLength: intFlag('sequence-length', v['sequence-length'], 20, 1),
    sharedMemory: shm,
    // perf_analyzer's default: 100 KiB per output.
    outputSharedMemorySize: intFlag('output-shared-memory-size', v['output-shared-memory-size'], 102400, 1),
    help,
  };
}
