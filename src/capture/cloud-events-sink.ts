/**
 * The CloudEvents sink, in KServe's inference-logger form: for each captured top-level request, a
 * `org.kubeflow.serving.inference.request` event whose body is the v2 JSON request and a
 * `org.kubeflow.serving.inference.response` event whose body is the v2 JSON response (or, for a
 * failed request, `{"error": ...}` as the HTTP front end answers it), both POSTed in binary content
 * mode (the attributes as `ce-*` headers) with `ce-id` the request id. Steps stay in the other
 * sinks: an inference logger sees what crossed the wire. Events wait up to `queue` at a time, at
 * most 4 POSTs in flight; a failed POST (network error, 429, 5xx) is retried 3 times with a
 * doubling back-off, then dropped and counted.
 */
import { Agent as HttpAgent, request as httpRequest, type Agent } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Logger } from '../logger.js';
import { jsonWireBytes, stringifyExact, tensorDataJson } from '../protocol/index.js';
import type { CaptureQueue } from './capture-queue.js';
import type { CaptureSettings } from './capture-settings.js';
import type { CapturedRecord } from './captured-record.js';
import type { CaptureSink } from './create-capture.js';
import { isOmitted, recordTensorJson, tensorOfRecord, type RecordTensor, type SnapTensor } from './record-tensor.js';

export const REQUEST_EVENT = 'org.kubeflow.serving.inference.request';
export const RESPONSE_EVENT = 'org.kubeflow.serving.inference.response';

const IN_FLIGHT = 4;
const RETRIES = 3;
const FIRST_BACKOFF_MS = 100;
const POST_TIMEOUT_MS = 5000;
const CLOSE_WAIT_MS = 5000;

interface CloudEvent {
  readonly headers: Record<string, string>;
  readonly body: string | Buffer;
}

/** A v2 JSON tensor; one whose data was not recorded carries its summary as parameters, without data. */
function v2Tensor(t: SnapTensor): string {
  const head = `{"name":${JSON.stringify(t.name)},"datatype":"${t.datatype}","shape":[${t.shape.join(',')}]`;
  if (isOmitted(t)) return `${head},"parameters":${JSON.stringify({ omitted: t.omitted, bytes: t.bytes, ...(t.sha256 ? { sha256: t.sha256 } : {}) })}}`;
  // The record's text back into a tensor, for v2 JSON's data array (only requests reach this sink).
  const tensor = tensorOfRecord(JSON.parse(recordTensorJson(t)) as RecordTensor)!;
  return `${head},"data":${tensorDataJson(tensor)}}`;
}

function requestEventBody(r: CapturedRecord): string | Buffer {
  let s = `{"id":${JSON.stringify(r.requestId)}`;
  if (r.parameters && Object.keys(r.parameters).length > 0) s += `,"parameters":${stringifyExact(r.parameters)}`;
  s += `,"inputs":[${r.inputs.map(v2Tensor).join(',')}]`;
  if (r.requestedOutputs) s += `,"outputs":${JSON.stringify(r.requestedOutputs.map((name) => ({ name })))}`;
  return jsonWireBytes(s + '}');
}

function responseEventBody(r: CapturedRecord): string | Buffer {
  if (r.error) return JSON.stringify({ error: r.error.message });
  const s = `{"model_name":${JSON.stringify(r.model)},"model_version":${JSON.stringify(r.version ?? '')},"id":${JSON.stringify(r.requestId)},"outputs":[${(r.outputs ?? []).map(v2Tensor).join(',')}]}`;
  return jsonWireBytes(s);
}

export class CloudEventsSink implements CaptureSink {
  readonly name = 'url';
  readonly #url: URL;
  readonly #s: CaptureSettings;
  readonly #queue: CaptureQueue;
  readonly #log: Logger;
  readonly #agent: Agent;
  readonly #waiting: CloudEvent[] = [];
  #inFlight = 0;
  #failing = false;
  #idle: (() => void) | undefined;

  constructor(url: string, s: CaptureSettings, queue: CaptureQueue, log: Logger) {
    this.#url = new URL(url);
    this.#s = s;
    this.#queue = queue;
    this.#log = log;
    this.#agent = this.#url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, maxSockets: IN_FLIGHT }) : new HttpAgent({ keepAlive: true, maxSockets: IN_FLIGHT });
  }

  write(records: readonly CapturedRecord[]): void {
    for (const r of records) {
      if (r.record !== 0) continue;
      const time = new Date(r.time).toISOString();
      const base = {
        'ce-specversion': '1.0', 'ce-id': r.requestId, 'ce-source': this.#s.source, 'ce-time': time,
        'ce-inferenceservicename': r.model, 'ce-tributarycapture': r.capture, 'content-type': 'application/json',
      };
      this.#enqueue({ headers: { ...base, 'ce-type': REQUEST_EVENT }, body: requestEventBody(r) });
      if (!r.cancelled) this.#enqueue({ headers: { ...base, 'ce-type': RESPONSE_EVENT }, body: responseEventBody(r) });
    }
    this.#pump();
  }

  #enqueue(e: CloudEvent): void {
    if (this.#waiting.length >= this.#s.queueRecords) this.#queue.drop(this.name);
    else this.#waiting.push(e);
  }

  #pump(): void {
    while (this.#inFlight < IN_FLIGHT && this.#waiting.length > 0) {
      const e = this.#waiting.shift()!;
      this.#inFlight++;
      void this.#deliver(e).then((ok) => {
        this.#inFlight--;
        if (ok) this.#queue.wrote(this.name, 1);
        else this.#queue.drop(this.name);
        this.#pump();
        if (this.#inFlight === 0 && this.#waiting.length === 0) this.#idle?.();
      });
    }
  }

  async #deliver(e: CloudEvent): Promise<boolean> {
    let why = '';
    for (let attempt = 0; attempt <= RETRIES; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, FIRST_BACKOFF_MS * 2 ** (attempt - 1)));
      const status = await this.#post(e).catch((err: Error) => err);
      if (typeof status === 'number' && status < 300) {
        if (this.#failing) this.#log.info(`capture: the CloudEvents receiver at ${this.#url.origin} takes events again`);
        this.#failing = false;
        return true;
      }
      why = typeof status === 'number' ? `HTTP ${status}` : status.message;
      // Only an overloaded or failing receiver may take the event on a later try.
      if (typeof status === 'number' && status !== 429 && status < 500) break;
    }
    if (!this.#failing) this.#log.warn(`capture: the CloudEvents receiver at ${this.#url.origin} refused an event (${why}); events are dropped until it takes them`);
    this.#failing = true;
    return false;
  }

  #post(e: CloudEvent): Promise<number> {
    const send = this.#url.protocol === 'https:' ? httpsRequest : httpRequest;
    const body = typeof e.body === 'string' ? Buffer.from(e.body) : e.body;
    return new Promise((resolve, reject) => {
      const req = send(this.#url, { method: 'POST', agent: this.#agent, timeout: POST_TIMEOUT_MS, headers: { ...e.headers, 'content-length': String(body.length) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer in ${POST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  async close(): Promise<void> {
    if (this.#inFlight > 0 || this.#waiting.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((r) => { this.#idle = r; }),
        new Promise<void>((r) => { timer = setTimeout(r, CLOSE_WAIT_MS); }),
      ]);
      clearTimeout(timer);
    }
    this.#agent.destroy();
  }
}
