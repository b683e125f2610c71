/** A capture sink that keeps its lines in memory, read back the way `inspect` reads a directory. */
import { groupRequests, type CaptureSink, type CapturedRequest, type RecordLine } from '../../src/capture/index.js';
import { parseJsonExact } from '../../src/protocol/index.js';

export interface MemorySink extends CaptureSink {
  readonly lines: string[];
  records(): RecordLine[];
  requests(): CapturedRequest[];
}

export function memorySink(): MemorySink {
  const lines: string[] = [];
  const records = () => lines.map((l) => parseJsonExact(l) as RecordLine);
  return {
    name: 'memory',
    lines,
    write(_records, ls) { lines.push(...ls); },
    close: async () => undefined,
    records,
    requests: () => groupRequests(records()),
  };
}

/** Lets the queue's setImmediate drain run. */
export const drained = () => new Promise((r) => setImmediate(() => setImmediate(r)));
