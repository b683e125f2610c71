import { readdir } from 'node:fs/promises';

/**
 * The backend of a model whose config names none, from the files in its version directory
 * (Triton's auto-complete does the same for platforms it can recognise).
 */
export async function guessBackend(versionDir: string): Promise<{ backend: string; platform: string } | undefined> {
  const files = new Set(await readdir(versionDir).catch(() => [] as string[]));
  if (files.has('model.onnx')) return { backend: 'onnxruntime', platform: 'onnxruntime_onnx' };
  if (files.has('model.ts') || files.has('model.js')) return { backend: 'typescript', platform: '' };
  return undefined;
}
