/**
 * onnxruntime's load errors quote absolute paths ("Load model from /tmp/.../1/model.onnx failed",
 * "External data path: ... resolved path: /etc/... allowed directory: /tmp/..."). They reach the
 * client of a load request, and an uploaded model lives in a temporary directory whose path tells
 * about the host, so every absolute path is rewritten before the message leaves the backend:
 * relative to the model directory when it lies inside, else a placeholder.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { isInside } from '../../src/paths/index.js';

/** An absolute POSIX path: starts with '/' after a separator, runs to whitespace or a quote. */
const ABSOLUTE = /(^|[\s"'`(=:,[])(\/[^\s"'`),\]]*)/g;

export const OUTSIDE_PLACEHOLDER = '<outside the model directory>';

/** `message` with each absolute path shown relative to `modelDir` (one of its names: real or given). */
export function relativePaths(message: string, modelDirs: readonly string[]): string {
  return message.replace(ABSOLUTE, (_m, lead: string, path: string) => {
    for (const dir of modelDirs) {
      if (isAbsolute(dir) && isInside(dir, path)) return lead + (relative(dir, path).split(sep).join('/') || '.');
    }
    return lead + OUTSIDE_PLACEHOLDER;
  });
}
