/**
 * `tributary replay DIR --url HOST:PORT`: sends the captured top-level requests again, through the
 * client SDK, and compares every answer with the captured one (replay-compare.ts). Exit 0 when none
 * differs, 1 when any does: a capture becomes a regression test of a changed pipeline or model.
 */
import { createGrpcClient, createHttpClient, type InferenceClient, type InferOptions, type InferResult } from '../client/index.js';
import type { CapturedRequest, RecordTensor } from '../capture/index.js';
import { tensorOfRecord } from '../capture/index.js';
import { Errors, toTributaryError } from '../errors.js';
import type { Tensor } from '../tensor/index.js';
import { SOURCE_FLAGS, formatFlag, jsonText, loadCaptures, selectRequests } from './capture-source.js';
import { intFlag, parseFlags } from './flags.js';
import { compareOutputs, type Difference, type Tolerance } from './replay-compare.js';

const HELP = `Usage: tributary replay <capture-dir> --url <host>:<port> [options]
       tributary replay --redis <host>:<port> [--stream <key>] --url <host>:<port> [options]

Send the requests captured by 'tributary serve --capture-config' again and compare every output with
the captured one: integers, booleans and strings exactly, floats within --atol + --rtol x |captured|.
Prints 'N replayed, D differ' and the first differences of each output; exits 0 when none differs,
1 when any does. A captured failure is expected to fail again. Requests whose inputs were not
recorded whole (max-bytes, redact) are skipped and counted.

Options:
  --url <host>:<port>    the server to replay against (required)
  --protocol <http|grpc> how to send (default http)
  --model <model>        requests in which this model took part
  --id <id>              one request id (or capture id)
  --since <when>         requests captured since an ISO time or a span back from now (30s, 10m, 2h, 1d)
  --rtol <x>             relative tolerance for floats (default 1e-5)
  --atol <x>             absolute tolerance for floats (default 1e-8)
  --concurrency <n>      requests in flight at once (default 4, at most 256)
  --format <text|json>   text (default) or JSON
  --redis <host>:<port>  read the Redis stream instead of a directory (--stream <key>, default tributary:capture)
  --help, -h             print this help
`;

const MAX_CONCURRENCY = 256;

interface Outcome {
  request_id: string;
  capture: string;
  model: string;
  status: 'same' | 'differ' | 'skipped';
  differences: Difference[];
  /** Why it was skipped. */
  reason?: string;
}

function toleranceFlag(name: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (String(v).trim() === '' || !Number.isFinite(n) || n < 0) throw Errors.cliFlagExpects(name, 'a number >= 0', String(v));
  return n;
}

/** The captured request's inputs, or why it cannot be sent again. */
function inputsOf(req: CapturedRequest): Tensor[] | string {
  const inputs: Tensor[] = [];
  for (const t of req.root!.inputs) {
    const tensor = tensorOfRecord(t);
    if (!tensor) return `input '${t.name}' was not recorded whole (${t.omitted ?? 'no data'})`;
    inputs.push(tensor);
  }
  return inputs;
}

async function replayOne(client: InferenceClient, req: CapturedRequest, tol: Tolerance): Promise<Outcome> {
  const root = req.root!;
  const base = { request_id: req.requestId, capture: req.capture, model: root.model };
  const inputs = inputsOf(req);
  if (typeof inputs === 'string') return { ...base, status: 'skipped', differences: [], reason: inputs };
  const options: InferOptions = { id: req.requestId };
  if (root.parameters && Object.keys(root.parameters).length > 0) options.parameters = root.parameters;
  if (root.requested_outputs) options.outputs = root.requested_outputs.map((name) => ({ name }));
  const captured: readonly (readonly RecordTensor[])[] = root.responses ?? (root.outputs ? [root.outputs] : []);
  let answers: InferResult[];
  try {
    if (root.responses) {
      answers = [];
      for await (const r of client.stream(root.model, inputs, options)) answers.push(r);
    } else answers = [await client.infer(root.model, inputs, options)];
  } catch (e) {
    const message = toTributaryError(e).message;
    if (root.error !== undefined) return { ...base, status: 'same', differences: [] };
    return { ...base, status: 'differ', differences: [{ output: '(request)', what: `failed now: ${message}` }] };
  }
  if (root.error !== undefined) return { ...base, status: 'differ', differences: [{ output: '(request)', what: `failed when captured (${root.error}), answers now` }] };
  const differences: Difference[] = [];
  if (answers.length !== captured.length) differences.push({ output: '(responses)', what: `${captured.length} captured, ${answers.length} now` });
  for (let i = 0; i < Math.min(answers.length, captured.length); i++) {
    for (const d of compareOutputs(captured[i]!, answers[i]!.outputs, tol)) {
      differences.push(captured.length > 1 ? { ...d, output: `${d.output} (response ${i})` } : d);
    }
  }
  return { ...base, status: differences.length ? 'differ' : 'same', differences };
}

export async function replay(argv: readonly string[]): Promise<number> {
  const { values: f, positionals } = parseFlags('replay', argv, {
    ...SOURCE_FLAGS, url: { type: 'string', short: 'u' }, protocol: { type: 'string', short: 'i' },
    rtol: { type: 'string' }, atol: { type: 'string' }, concurrency: { type: 'string' },
  });
  if (f.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (f.url === undefined) throw Errors.cliArgsInvalid('replay', '--url <host>:<port> names the server to replay against');
  const protocol = String(f.protocol ?? 'http');
  if (protocol !== 'http' && protocol !== 'grpc') throw Errors.cliFlagChoice('protocol', 'http or grpc', protocol);
  const format = formatFlag(f.format);
  const tol: Tolerance = { rtol: toleranceFlag('rtol', f.rtol, 1e-5), atol: toleranceFlag('atol', f.atol, 1e-8) };
  const concurrency = intFlag('concurrency', f.concurrency, 4, 1, MAX_CONCURRENCY);
  const loaded = await loadCaptures('replay', positionals, f);
  if (loaded.unreadable > 0) process.stderr.write(`replay: ${loaded.unreadable} line(s) of ${loaded.source} are not capture records and were skipped\n`);
  const chosen = selectRequests(loaded.requests, f).filter((r) => r.root !== undefined && !r.root.cancelled);
  if (chosen.length === 0) throw Errors.captureNotFound(f.model === undefined && f.id === undefined ? 'that ended' : 'matching --model/--id/--since', loaded.source);
  const url = String(f.url);
  const client = protocol === 'grpc' ? createGrpcClient({ address: url }) : createHttpClient({ url });
  const outcomes = new Array<Outcome>(chosen.length);
  try {
    let next = 0;
    const worker = async () => {
      while (next < chosen.length) {
        const i = next++;
        outcomes[i] = await replayOne(client, chosen[i]!, tol);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, chosen.length) }, worker));
  } finally {
    await client.close();
  }
  const skipped = outcomes.filter((o) => o.status === 'skipped').length;
  const replayed = outcomes.length - skipped;
  const differ = outcomes.filter((o) => o.status === 'differ').length;
  const summary = `${replayed} replayed, ${differ} differ${skipped ? `, ${skipped} skipped` : ''}`;
  if (format === 'json') {
    process.stdout.write(jsonText({ replayed, differ, skipped, url, protocol, requests: outcomes }));
  } else {
    const lines: string[] = [];
    for (const o of outcomes) {
      if (o.status === 'differ') {
        lines.push(`${o.request_id} (${o.model}) differs:`);
        for (const d of o.differences) lines.push(`  ${d.output}: ${d.what}`);
      } else if (o.status === 'skipped') lines.push(`${o.request_id} (${o.model}) skipped: ${o.reason}`);
    }
    lines.push(summary);
    process.stdout.write(lines.join('\n') + '\n');
  }
  return differ > 0 ? 1 : 0;
}
