import type * as ort from 'onnxruntime-node';
import { STORAGE, type DataType } from '../../src/tensor/index.js';
import type { IoSignature, ModelSignature } from './model-signature.js';
import { ortTypeOf, type PlainTensor } from './ort-tensor.js';
import { ortFeeds } from './session-runner.js';

/**
 * The probe's runs log nothing: a model may refuse zero inputs with variable dims of 1 (Silero VAD's
 * reflect padding needs 2 samples, and onnxruntime wrote "[E:onnxruntime:...] Pad reflect requires
 * axis length >= 2" at every load); that refusal is an answer here (undefined), not an error, and
 * the requests' own runs keep onnxruntime's default log level.
 */
const QUIET: ort.InferenceSession.RunOptions = { logSeverityLevel: 4 };

/** Zero-filled feeds for one item: variable dims become 1. */
function zeroFeeds(inputs: readonly IoSignature[]): PlainTensor[] {
  return inputs.map((io) => {
    const dims = io.dims.map((d) => (d < 0 ? 1 : d));
    const count = dims.reduce((a, b) => a * b, 1);
    const dt = io.datatype as DataType;
    const data = dt === 'BYTES' ? new Array<string>(count).fill('') : new STORAGE[dt as Exclude<DataType, 'BYTES'>](count);
    return { name: io.name, type: ortTypeOf(dt)!, dims, data };
  });
}

/**
 * Fastest time (µs) of a warm run on zero inputs, or undefined when the model cannot run on them
 * (e.g. it needs particular values or shapes); callers then keep the safe default.
 */
export async function measureRunUs(session: ort.InferenceSession, sig: ModelSignature, constants: readonly PlainTensor[] = [], runs = 5): Promise<number | undefined> {
  const zeroed = sig.inputs.filter((i) => !constants.some((c) => c.name === i.name));
  if (zeroed.some((i) => !i.datatype)) return undefined;
  const feeds = ortFeeds([...zeroFeeds(zeroed), ...constants]);
  try {
    await session.run(feeds, QUIET); // warm-up: first run allocates and plans
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = process.hrtime.bigint();
      await session.run(feeds, QUIET);
      times.push(Number(process.hrtime.bigint() - t) / 1000);
    }
    // The fastest run, not the median: each `await` lets other work on the event loop run inside the
    // timed span, and models load together at start. The median timed langid's 16 µs MLP at 9.1 ms
    // during a repository load and sent it to a worker thread; the minimum stays near the model's own.
    return Math.min(...times);
  } catch {
    return undefined;
  }
}
