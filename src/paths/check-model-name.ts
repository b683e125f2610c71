import { Errors } from '../errors.js';

/** Triton's limit: a model name is a directory name, so at most one file-name component (255 bytes). */
const MAX_NAME_BYTES = 255;

/** Why `name` cannot name a model directory, or undefined when it can (Triton's naming rules). */
function modelNameProblem(name: string): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return 'it is empty';
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) return `it is longer than ${MAX_NAME_BYTES} bytes`;
  if (name === '.' || name === '..') return `'${name}' is not a directory name`;
  if (/[/\\]/.test(name)) return "it contains a path separator ('/' or '\\')";
  // NUL ends a C path early; other control characters corrupt logs and terminals.
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'it contains a control character';
  return undefined;
}

/**
 * Refuse a model name that could not be a directory in a model repository, before it reaches
 * any path. The message quotes the name as JSON so control characters stay visible.
 */
export function checkModelName(name: string): string {
  const problem = modelNameProblem(name);
  if (problem) throw Errors.invalidModelName(JSON.stringify(String(name)).slice(0, 300), problem);
  return name;
}
