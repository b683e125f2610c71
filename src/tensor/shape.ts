/** Shape math. -1 marks a variable dimension in configs; request shapes are always concrete. */

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

/** True when a concrete `shape` matches `dims`, where -1 in `dims` matches any size. */
export function shapeMatches(dims: readonly number[], shape: readonly number[]): boolean {
  if (dims.length !== shape.length) return false;
  for (let i = 0; i < dims.length; i++) if (dims[i] !== -1 && dims[i] !== shape[i]) return false;
  return true;
}

/** True when two config dims (possibly with -1) can describe the same tensor. */
export function dimsCompatible(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== -1 && b[i] !== -1 && a[i] !== b[i]) return false;
  return true;
}
