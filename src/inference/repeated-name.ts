/** Up to this many names, a repeat is found by scanning the names before each (no Set per request). */
const SCAN_MAX = 16;

/** The Set `repeatsName` needs for `count` names, or undefined when a scan will do. */
export function namesSeen(count: number): Set<string> | undefined {
  return count > SCAN_MAX ? new Set<string>() : undefined;
}

/**
 * True when `named[i]`'s name came earlier in `named` (inputs or requested outputs, read in order).
 * With a Set from `namesSeen`, the name is looked up and recorded there; without, the names before
 * it are scanned.
 */
export function repeatsName(named: readonly { readonly name: string }[], i: number, seen: Set<string> | undefined): boolean {
  const name = named[i]!.name;
  if (seen) {
    if (seen.has(name)) return true;
    seen.add(name);
    return false;
  }
  for (let j = 0; j < i; j++) if (named[j]!.name === name) return true;
  return false;
}
