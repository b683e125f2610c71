/**
 * The loop a new dependency `from -> to` would close, as model names `[from, to, ..., from]`, or
 * undefined when there is none. `next(n)` gives the models `n` depends on: the composing models a
 * loaded pipeline serves with and the one a pipeline's load is waiting for. Waits count because
 * two loads that wait on each other never settle; a cycle among them must be refused before the
 * second wait starts, not discovered by a hang. Breadth first, so the loop reported is a shortest.
 */
export function findDependencyCycle(from: string, to: string, next: (model: string) => Iterable<string>): string[] | undefined {
  if (to === from) return [from, from];
  const prev = new Map<string, string>([[to, from]]);
  const queue = [to];
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i]!;
    for (const n of next(at)) {
      if (n === from) {
        const path = [from];
        for (let p: string | undefined = at; p !== undefined && p !== from; p = prev.get(p)) path.unshift(p);
        return [from, ...path];
      }
      if (!prev.has(n)) {
        prev.set(n, at);
        queue.push(n);
      }
    }
  }
  return undefined;
}
