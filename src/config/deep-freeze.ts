/** Freeze an object graph so a loaded config cannot be changed behind the server's back. */
export function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v) || ArrayBuffer.isView(v)) return v;
  Object.freeze(v);
  for (const key of Reflect.ownKeys(v as object)) deepFreeze((v as Record<string | symbol, unknown>)[key]);
  return v;
}
