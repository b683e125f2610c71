/**
 * Records grouped back into requests: one per capture id, its records as a tree by their parent
 * links. Records are written as hops end (children first, the request last), and several requests'
 * records interleave, so the grouping is done here, never assumed from the order.
 */
import type { RecordLine } from './read-captures.js';
import { resolveRefs, type RecordTensor } from './record-tensor.js';

export interface RecordNode {
  readonly record: RecordLine;
  readonly children: RecordNode[];
}

export interface CapturedRequest {
  readonly capture: string;
  readonly requestId: string;
  /** Record 0; absent when it was dropped or the request had not ended when the records were read. */
  readonly root: RecordLine | undefined;
  readonly records: readonly RecordLine[];
  /** The tree from record 0 (or, without it, from each record whose parent is missing). */
  readonly tree: readonly RecordNode[];
  /** The request's start, ms since the epoch. */
  readonly time: number;
  readonly failed: boolean;
}

export function groupRequests(records: readonly RecordLine[]): CapturedRequest[] {
  const byCapture = new Map<string, RecordLine[]>();
  for (const r of records) {
    let list = byCapture.get(r.capture);
    if (!list) byCapture.set(r.capture, (list = []));
    list.push(r);
  }
  const out: CapturedRequest[] = [];
  for (const [capture, list] of byCapture) {
    list.sort((a, b) => a.start_ms - b.start_ms || a.record - b.record);
    const nodes = new Map<number, RecordNode>();
    for (const r of list) if (!nodes.has(r.record)) nodes.set(r.record, { record: r, children: [] });
    const tree: RecordNode[] = [];
    for (const n of nodes.values()) {
      const parent = n.record.parent === undefined ? undefined : nodes.get(n.record.parent);
      if (parent && parent !== n) parent.children.push(n);
      else tree.push(n);
    }
    resolveRefs(list.flatMap((r): RecordTensor[] => [...r.inputs, ...(r.outputs ?? []), ...(r.responses ?? []).flat()]));
    const root = nodes.get(0)?.record;
    const first = root ?? list[0]!;
    out.push({
      capture,
      requestId: first.request_id,
      root,
      records: list,
      tree: root ? [nodes.get(0)!] : tree,
      time: Date.parse(first.time) - (root ? 0 : first.start_ms),
      failed: list.some((r) => r.error !== undefined),
    });
  }
  return out.sort((a, b) => a.time - b.time);
}

/**
 * Where a failed request failed: following failed hops down from the request (the first to start
 * where several failed), the innermost one; the request itself when no hop under it failed.
 */
export function failingRecord(req: CapturedRequest): RecordLine | undefined {
  const down = (n: RecordNode): RecordLine => {
    const c = n.children.find((x) => x.record.error !== undefined);
    return c ? down(c) : n.record;
  };
  const top = req.tree.find((n) => n.record.error !== undefined);
  return top ? down(top) : undefined;
}
