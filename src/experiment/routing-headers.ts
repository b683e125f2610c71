/**
 * The caller headers that loaded experiments route on (`sticky: { header: x-user }`). The data
 * plane's edge copies exactly these from each request's headers, so a request pays for sticky
 * routing only while an experiment asks for it. Counted per name: a reload holds the old and the
 * new version of an experiment for a moment, and the name must outlive either.
 */
export interface RoutingHeaders {
  /** Lower-case names asked for now (the same array until the set changes). */
  names(): readonly string[];
  /** Ask for `name` until the returned function is called. */
  add(name: string): () => void;
}

export function createRoutingHeaders(): RoutingHeaders {
  const counts = new Map<string, number>();
  let names: readonly string[] = [];
  const update = () => {
    names = Object.freeze([...counts.keys()]);
  };
  return {
    names: () => names,
    add(name) {
      const key = name.toLowerCase();
      counts.set(key, (counts.get(key) ?? 0) + 1);
      update();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const n = (counts.get(key) ?? 1) - 1;
        if (n > 0) counts.set(key, n);
        else counts.delete(key);
        update();
      };
    },
  };
}
