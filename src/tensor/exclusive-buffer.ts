/**
 * Buffers that one request owns outright: only that request's input tensors view them, and nothing
 * reads them once the model has consumed those inputs. A backend that runs in another thread may
 * then move (transfer, detaching it here) such a buffer instead of copying it: for a 16 MB input
 * the copy cost ~6 ms of main-thread CPU per request (W2). Whoever creates the buffer marks it
 * (the HTTP front end, for large bodies); whatever may hand one tensor to several consumers (a
 * pipeline fanning an input out to two steps) releases the mark first. A WeakSet: marking adds
 * nothing to the Tensor contract and never leaks.
 */
const exclusive = new WeakSet<ArrayBufferLike>();

export function markExclusive(buffer: ArrayBufferLike): void {
  exclusive.add(buffer);
}

export function isExclusive(buffer: ArrayBufferLike): boolean {
  return exclusive.has(buffer);
}

/** The buffer may reach more than one consumer from here on: it must be copied, never moved. */
export function releaseExclusive(buffer: ArrayBufferLike): void {
  exclusive.delete(buffer);
}
