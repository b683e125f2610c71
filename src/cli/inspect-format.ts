/** How `tributary inspect` shows captured requests: a list row each, or one request's tree of records. */
import { failingRecord, tensorOfRecord, type CapturedRequest, type RecordLine, type RecordNode, type RecordTensor } from '../capture/index.js';
import { bf16ToNumber, halfToNumber, type TypedArray } from '../tensor/index.js';

/** Elements shown of a tensor unless --full; characters shown of a string element. */
const SHOWN = 8;
const CHARS = 80;

type Shown = Record<string, unknown>;

function statusOf(r: RecordLine | undefined): 'ok' | 'error' | 'cancelled' | 'incomplete' {
  if (!r) return 'incomplete';
  return r.error !== undefined ? 'error' : r.cancelled ? 'cancelled' : 'ok';
}

const elements = (t: RecordTensor) => t.shape.reduce((a, b) => a * b, 1);

/** A recorded tensor's elements as plain values: numbers (64-bit integers past 2^53 as bigints), booleans, strings. */
function values(t: RecordTensor): unknown[] {
  if (t.data_b64 === undefined) return t.data ?? [];
  const d = tensorOfRecord(t)!.data as TypedArray;
  if (t.datatype === 'FP16') return Array.from(d as Uint16Array, halfToNumber);
  if (t.datatype === 'BF16') return Array.from(d as Uint16Array, bf16ToNumber);
  if (t.datatype === 'BOOL') return Array.from(d as Uint8Array, (b) => b !== 0);
  if (d instanceof BigInt64Array || d instanceof BigUint64Array) return Array.from(d, (b) => (b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b));
  return Array.from(d as Float32Array);
}

/** A tensor for JSON output: its data cut to the first elements unless `full`. */
function tensorJson(t: RecordTensor, full: boolean): Shown {
  const base: Shown = { name: t.name, datatype: t.datatype, shape: t.shape };
  if (t.omitted !== undefined) return { ...base, omitted: t.omitted, bytes: t.bytes, ...(t.sha256 ? { sha256: t.sha256 } : {}) };
  if (t.data === undefined && t.data_b64 === undefined) return { ...base, omitted: 'not kept' };
  const data = values(t);
  if (full || data.length <= SHOWN) return { ...base, data };
  return { ...base, data: data.slice(0, SHOWN), elements: elements(t), truncated: true };
}

function elementText(v: unknown, full: boolean): string {
  if (typeof v === 'string') return JSON.stringify(full || v.length <= CHARS ? v : `${v.slice(0, CHARS)}...`);
  if (v && typeof v === 'object' && 'b64' in v) return `<${Buffer.from(String((v as { b64: unknown }).b64), 'base64').length} bytes>`;
  return v === null ? 'NaN' : String(v);
}

function tensorText(t: RecordTensor, full: boolean): string {
  const head = `${t.name} ${t.datatype} [${t.shape.join(',')}]`;
  if (t.omitted !== undefined) return `${head} (not recorded: ${t.omitted}, ${t.bytes} bytes${t.sha256 ? `, sha256 ${t.sha256}` : ''})`;
  if (t.data === undefined && t.data_b64 === undefined) return `${head} (its data was in a record that was not kept)`;
  const data = values(t);
  const shown = full ? data : data.slice(0, SHOWN);
  const more = data.length > shown.length ? ` ... (${data.length} values)` : '';
  return `${head} ${shown.map((v) => elementText(v, full)).join(', ')}${more}`;
}

function nodeJson(n: RecordNode, full: boolean): Shown {
  const r = n.record;
  return {
    record: r.record, kind: r.kind, ...(r.step !== undefined ? { step: r.step } : {}), model: r.model,
    ...(r.version !== undefined ? { version: r.version } : {}), start_ms: r.start_ms, duration_ms: r.duration_ms, status: statusOf(r),
    ...(r.error !== undefined ? { error: r.error, error_code: r.error_code } : {}),
    inputs: r.inputs.map((t) => tensorJson(t, full)),
    ...(r.outputs ? { outputs: r.outputs.map((t) => tensorJson(t, full)) } : {}),
    ...(r.responses ? { responses: r.responses.map((ts) => ts.map((t) => tensorJson(t, full))) } : {}),
    children: n.children.map((c) => nodeJson(c, full)),
  };
}

/** One line of the list view, as data. */
export function requestSummary(req: CapturedRequest): Shown {
  const root = req.root;
  const failed = req.failed ? failingRecord(req) : undefined;
  return {
    request_id: req.requestId, capture: req.capture, model: root?.model ?? req.records[0]?.model, ...(root?.version ? { version: root.version } : {}),
    time: new Date(req.time).toISOString(), ...(root ? { duration_ms: root.duration_ms } : {}), records: req.records.length,
    status: statusOf(root), sampled: root?.sampled ?? req.records[0]?.sampled,
    ...(root?.error !== undefined ? { error: root.error } : {}),
    ...(failed && failed !== root ? { failed_step: { step: failed.step, model: failed.model, error: failed.error } } : {}),
  };
}

export function requestJson(req: CapturedRequest, full: boolean): Shown {
  return { ...requestSummary(req), tree: req.tree.map((n) => nodeJson(n, full)) };
}

export function listText(requests: readonly CapturedRequest[]): string[] {
  const rows = requests.map((r) => {
    const s = requestSummary(r);
    const where = s.failed_step ? `  at ${(s.failed_step as { step?: string }).step ?? ''} (${(s.failed_step as { model: string }).model})` : '';
    const dur = s.duration_ms === undefined ? '-' : `${Number(s.duration_ms).toFixed(1)} ms`;
    return [String(s.time), String(s.request_id), String(s.model), dur, `${String(s.records)} records`, `${String(s.status)}${where}`];
  });
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(0, ...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i < 5 ? c.padEnd(widths[i]!) : c)).join('  '));
}

export function treeText(req: CapturedRequest, full: boolean): string[] {
  const s = requestSummary(req);
  const out = [`request ${req.requestId}  ${String(s.model)}${s.version ? ` v${String(s.version)}` : ''}  ${String(s.time)}  capture ${req.capture}${s.sampled === false ? '  (failed, not sampled: its failing path only)' : ''}`];
  const failed = req.failed ? failingRecord(req) : undefined;
  if (failed) out.push(`failed at ${failed.step === undefined ? 'the request' : `${failed.kind} '${failed.step}' (model '${failed.model}')`}: ${failed.error}`);
  const walk = (n: RecordNode, lead: string, last: boolean, top: boolean) => {
    const r = n.record;
    const branch = top ? '' : last ? '└─ ' : '├─ ';
    const status = statusOf(r);
    const name = r.kind === 'request' ? `request ${r.model}` : `${r.kind} ${r.step ?? ''}${r.model !== r.step ? ` (${r.model}${r.version ? ` v${r.version}` : ''})` : r.version ? ` v${r.version}` : ''}`;
    out.push(`${lead}${branch}${name}  +${r.start_ms.toFixed(1)} ms  ${r.duration_ms.toFixed(1)} ms  ${status}${r.error !== undefined ? `: ${r.error}` : ''}`);
    const inner = top ? lead : lead + (last ? '   ' : '│  ');
    const bar = n.children.length > 0 ? '│ ' : '  ';
    for (const t of r.inputs) out.push(`${inner}${bar} in  ${tensorText(t, full)}`);
    for (const t of r.outputs ?? []) out.push(`${inner}${bar} out ${tensorText(t, full)}`);
    if (r.responses) out.push(`${inner}${bar} (${r.responses.length} responses${r.responses_dropped ? `, ${r.responses_dropped} more not kept` : ''}; the last shown)`);
    n.children.forEach((c, i) => walk(c, inner, i === n.children.length - 1, false));
  };
  for (const n of req.tree) walk(n, '', true, true);
  return out;
}
