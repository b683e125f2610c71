import { Errors } from '../errors.js';

/** Triton's limit: a model name is a directory name, so at most one file-name component (255 bytes). */
const MAX_NAME_BYTES = 255;

type TritonRule = 'empty' | 'traversal' | 'none';

/** Why `name` cannot name a model directory, and which of Triton's refusals it meets, or undefined when it can. */
function modelNameProblem(name: string): [string, TritonRule] | undefined {
  // Triton trims the name before its emptiness check: a name of spaces is empty too.
  if (typeof name !== 'string' || name.trim().length === 0) return ['it is empty', 'empty'];
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) return [`it is longer than ${MAX_NAME_BYTES} bytes`, 'none'];
  if (name === '..') return ["'..' is not a directory name", 'traversal'];
  if (name === '.') return ["'.' is not a directory name", 'none'];
  if (name.includes('/')) return ["it contains a path separator ('/' or '\\')", 'traversal'];
  if (name.includes('\\')) return ["it contains a path separator ('/' or '\\')", 'none'];
  // NUL ends a C path early; other control characters corrupt logs and terminals.
  if (/[\u0000-\u001f\u007f]/.test(name)) return ['it contains a control character', 'none'];
  return undefined;
}

/**
 * Refuse a model name that could not be a directory in a model repository, before it reaches
 * any path. The message shows the name JSON-escaped so control characters stay visible.
 */
export function checkModelName(name: string): string {
  const problem = modelNameProblem(name);
  if (problem) throw Errors.invalidModelName(JSON.stringify(String(name)).slice(1, -1).slice(0, 300), ...problem);
  return name;
}
