import type { BatchTrace, RequestTrace } from '../inference/index.js';

/** What a batch's trace needs of each of its work items. */
interface TracedItem { readonly trace?: RequestTrace; readonly batchSize: number }

/**
 * The trace of one batch execution when any request in it is traced (and its mode traces
 * batches): linked to every traced request, with the batch's request count and rows (a request of
 * a batching model counts its batch dimension; Triton's batch size is the rows executed together).
 */
export function openBatchTrace(items: readonly TracedItem[], model: string, version: string, now: number): BatchTrace | undefined {
  let traced: RequestTrace[] | undefined;
  for (const it of items) if (it.trace) (traced ??= []).push(it.trace);
  if (!traced) return undefined;
  let rows = 0;
  for (const it of items) rows += Math.max(1, it.batchSize);
  return traced[0]!.batch?.(model, version, traced, items.length, rows, now);
}
