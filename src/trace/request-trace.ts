import type { RequestTrace, TraceActivity, TraceSpawner } from '../inference/index.js';
import type { Tensor } from '../tensor/index.js';
import type { TraceFile } from './trace-file.js';

/** Where traces get their ids and where they are written. */
export interface TraceTarget {
  nextId(): number;
  readonly file: TraceFile;
  readonly tensors: boolean;
}

/** The spawner a sampled request carries: the model that serves it opens the root trace. */
export function rootSpawner(target: TraceTarget): TraceSpawner {
  return { open: (model, version, requestId) => new Trace(target, model, version, requestId, undefined) };
}

const text = JSON.stringify;

/**
 * One model's trace of one request, in Triton's JSON layout: a header object (id, model_name,
 * model_version, request_id, parent_id), one object with the timestamps in nanoseconds, and at
 * TENSORS level one object per tensor. Children (pipeline steps, BLS calls) carry parent_id.
 */
class Trace implements RequestTrace {
  readonly id: number;
  readonly tensors: boolean;
  readonly #target: TraceTarget;
  readonly #header: string;
  #stamps = '';
  #tensorRecords = '';
  #ended = false;

  constructor(target: TraceTarget, model: string, version: string, requestId: string | undefined, parentId: number | undefined) {
    this.#target = target;
    this.tensors = target.tensors;
    this.id = target.nextId();
    const v = Number(version);
    this.#header = `{"id":${this.id},"model_name":${text(model)},"model_version":${Number.isSafeInteger(v) ? v : text(version)}`
      + (requestId ? `,"request_id":${text(requestId)}` : '') + (parentId === undefined ? '' : `,"parent_id":${parentId}`) + '}';
  }

  open(model: string, version: string, requestId: string | undefined): RequestTrace {
    return new Trace(this.#target, model, version, requestId, this.id);
  }

  stamp(activity: TraceActivity, ms: number): void {
    // The server clock is milliseconds on a monotonic clock; Triton writes nanoseconds.
    this.#stamps += `${this.#stamps ? ',' : ''}{"name":"${activity}","ns":${Math.round(ms * 1e6)}}`;
  }

  tensor(activity: 'TENSOR_QUEUE_INPUT' | 'TENSOR_BACKEND_OUTPUT', t: Tensor): void {
    this.#tensorRecords += `,{"id":${this.id},"activity":"${activity}","tensor":{"name":${text(t.name)},"data":${text(tensorData(t))},"shape":"${t.shape.join(',')}","dtype":"${t.datatype}"}}`;
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#target.file.add(`${this.#header},{"id":${this.id},"timestamps":[${this.#stamps}]}${this.#tensorRecords}`);
  }
}

const decoder = new TextDecoder();

/** Triton writes a tensor's elements as one comma-separated string. */
function tensorData(t: Tensor): string {
  if (t.datatype === 'BYTES') return (t.data as readonly Uint8Array[]).map((b) => decoder.decode(b)).join(',');
  return Array.prototype.join.call(t.data, ',');
}
