import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InferenceClient, InferOptions, Tensor } from '../client/index.js';
import { tensorToBytes } from '../tensor/index.js';

/** The shared memory of one perf run: per data step, the options that bind its inputs and the outputs. */
export interface PerfSharedMemory {
  options(step: number): Pick<InferOptions, 'inputSharedMemory' | 'outputs'>;
  /** Unregister the regions and remove their shm objects. */
  close(): Promise<void>;
}

/**
 * perf_analyzer's `--shared-memory system`: every input of every data step is written once into
 * one POSIX shm object (a file under /dev/shm, which the server opens by its key "/<name>"), each
 * output gets `outputBytes` of a second one, and both are registered; requests then carry only
 * region references. Outputs of concurrent requests share their slots, as perf_analyzer's do: perf
 * never reads them.
 */
export async function perfSharedMemory(
  client: InferenceClient, data: readonly Tensor[][], outputs: readonly string[], outputBytes: number, shmDir = '/dev/shm',
): Promise<PerfSharedMemory> {
  const prefix = `tributary_perf_${process.pid}_${randomBytes(4).toString('hex')}`;
  const inRegion = `${prefix}_input`;
  const outRegion = `${prefix}_output`;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const inputRefs = data.map((inputs) => Object.fromEntries(inputs.map((t) => {
    const bytes = tensorToBytes(t);
    chunks.push(bytes);
    const ref = { region: inRegion, byteSize: bytes.byteLength, offset: size };
    size += bytes.byteLength;
    return [t.name, ref];
  })));
  const outputOptions = outputs.map((name, i) => ({ name, sharedMemory: { region: outRegion, byteSize: outputBytes, offset: i * outputBytes } }));
  const files = [join(shmDir, inRegion), join(shmDir, outRegion)];
  const registered: string[] = [];
  const close = async () => {
    await Promise.allSettled(registered.map((r) => client.unregisterSystemSharedMemory(r)));
    await Promise.allSettled(files.map((f) => rm(f, { force: true })));
  };
  try {
    // A region cannot be empty: a model whose inputs are all empty still gets one byte.
    await writeFile(files[0]!, size > 0 ? Buffer.concat(chunks) : Buffer.alloc(1));
    await writeFile(files[1]!, Buffer.alloc(Math.max(1, outputs.length * outputBytes)));
    await client.registerSystemSharedMemory(inRegion, `/${inRegion}`, Math.max(1, size));
    registered.push(inRegion);
    if (outputs.length > 0) {
      await client.registerSystemSharedMemory(outRegion, `/${outRegion}`, outputs.length * outputBytes);
      registered.push(outRegion);
    }
  } catch (e) {
    await close();
    throw e;
  }
  return {
    options: (step) => ({ inputSharedMemory: inputRefs[step % inputRefs.length]!, ...(outputs.length ? { outputs: outputOptions } : {}) }),
    close,
  };
}
