/**
 * Pipeline conditions: ns per evaluation of compiled conditions (the target is at most 2 µs each),
 * on real tensors as a run hands them over (read through a Map, as the run's tensor scope does).
 * Run: npm run bench condition, or node --import tsx bench/workloads/condition.ts [evaluations] (default 2e6)
 */
import { pathToFileURL } from 'node:url';
import { compileCondition, type ConditionTensorInfo } from '../../src/pipeline/index.js';
import { createTensor, type Tensor } from '../../src/tensor/index.js';

const LABELS = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'sv'];
const INFOS = new Map<string, ConditionTensorInfo>([
  ['lang', { datatype: 'BYTES', dims: [1] }],
  ['lang_p', { datatype: 'FP32', dims: [-1, LABELS.length], labels: LABELS }],
  ['scores', { datatype: 'FP32', dims: [1000] }],
  ['count', { datatype: 'INT64', dims: [1] }],
]);
const TENSORS = new Map<string, Tensor>([
  ['lang', createTensor('lang', 'BYTES', [1], ['en'])],
  ['lang_p', createTensor('lang_p', 'FP32', [1, LABELS.length], [0.05, 0.8, 0.05, 0.02, 0.02, 0.02, 0.02, 0.02])],
  ['scores', createTensor('scores', 'FP32', [1000], Float32Array.from({ length: 1000 }, (_, i) => (i % 97) / 100))],
  ['count', createTensor('count', 'INT64', [1], [42n])],
]);
const PARAMS = { detect: true, top_k: 5, mode: 'fast' };

const CONDITIONS = [
  "lang == 'en'",
  "max(lang_p) > 0.5 and top1(lang_p) in ['en', 'de']",
  'params.top_k > 3',
  'params.detect != false',
  '(params.top_k ?? 3) * 2 <= count',
  "lang not in ['de', 'fr', 'es', 'it', 'nl', 'pt', 'sv', 'da', 'fi', 'no']",
  'shape(lang_p)[1] == 8 and size(lang_p) > 0',
  'any(scores > 0.95)',
  'mean(scores) > 0.4',
];

export async function run(evaluations = 2e6): Promise<object> {
  const env = { tensor: (n: string) => INFOS.get(n), names: () => INFOS.keys() };
  const read = (n: string) => TENSORS.get(n);
  const rows: { condition: string; result: boolean; nsPerEval: number }[] = [];
  for (const source of CONDITIONS) {
    const { condition, problems } = compileCondition(source, env);
    if (!condition) throw new Error(`${source}: ${problems.map((p) => p.message).join('; ')}`);
    // the 1000-element scans are ~1000x the work: fewer runs keep the phase short
    const n = source.includes('scores') ? Math.max(1000, evaluations / 100) : evaluations;
    let hits = 0;
    for (let i = 0; i < Math.min(n, 1e5); i++) if (condition.evaluate(read, PARAMS)) hits++;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (condition.evaluate(read, PARAMS)) hits++;
    const ns = Number(process.hrtime.bigint() - t0) / n;
    rows.push({ condition: source, result: hits > 0, nsPerEval: Math.round(ns * 10) / 10 });
  }
  console.table(rows);
  return { evaluations, rows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await run(Number(process.argv[2] ?? 2e6));
  process.exit(0);
}
