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

/**
 * The concrete shape `to` gives a tensor of concrete `shape` described by `from` (config dims),
 * as Triton reshapes: the n-th -1 of `to` takes the size at the n-th -1 of `from`. A -1 left
 * without a partner (the two sides count their -1s differently) is inferred from the element
 * count. Undefined when the element counts cannot agree.
 */
export function resolveReshape(from: readonly number[], shape: readonly number[], to: readonly number[]): number[] | undefined {
  const variable: number[] = [];
  for (let i = 0; i < from.length && i < shape.length; i++) if (from[i] === -1) variable.push(shape[i]!);
  const out: number[] = [];
  let unknown = -1;
  let known = 1;
  let v = 0;
  for (let i = 0; i < to.length; i++) {
    let d = to[i]!;
    if (d === -1 && v < variable.length) d = variable[v++]!;
    if (d === -1) {
      if (unknown >= 0) return undefined; // two sizes to infer from one count
      unknown = i;
    } else {
      known *= d;
    }
    out.push(d);
  }
  const total = elementCount(shape);
  if (unknown >= 0) {
    if (known === 0 || total % known !== 0) return undefined;
    out[unknown] = total / known;
  } else if (known !== total) {
    return undefined;
  }
  return out;
}
