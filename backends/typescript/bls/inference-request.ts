import { cancelChild, children, current, host, nextChildId, startChild } from './host-channel.js';
import { responseFromWire, type InferenceResponse, type Parameters } from './inference-response.js';
import { ModelError } from './model-error.js';
import { slots, type Request } from './request.js';
import { tensorToWire, type Tensor } from './tensor.js';
import type { WireChildRequest, WireError, WireResponse } from './wire.js';

export interface InferenceRequestInit {
  model: string;
  version?: string;
  inputs: readonly Tensor[];
  outputs?: readonly string[];
  parameters?: Parameters;
  correlationId?: bigint | string;
  sequenceStart?: boolean;
  sequenceEnd?: boolean;
  timeout?: number;
  priority?: number;
  parent?: Request;
}

/** A BLS call. Each exec()/stream() starts its own child request on the host. */
export class InferenceRequest {
  readonly model: string;
  readonly #init: InferenceRequestInit;

  constructor(init: InferenceRequestInit) {
    if (!init || typeof init.model !== 'string' || init.model === '') throw new ModelError('InferenceRequest needs a model name', 'INVALID_ARG');
    if (!Array.isArray(init.inputs)) throw new ModelError(`InferenceRequest to '${init.model}': inputs must be an array of Tensors`, 'INVALID_ARG');
    this.model = init.model;
    this.#init = init;
  }

  #start(onResponse: (r: WireResponse, final: boolean) => void, onError: (e: WireError) => void, onComplete: () => void): number {
    const i = this.#init;
    const slot = i.parent ? slots.get(i.parent) : undefined;
    if (i.parent && !slot) throw new ModelError(`InferenceRequest to '${i.model}': parent must be a request passed to execute()`, 'INVALID_ARG');
    const wire: WireChildRequest = {
      model: i.model,
      inputs: i.inputs.map(tensorToWire),
      parent: slot ? slot.index : -1,
    };
    if (i.version !== undefined) wire.version = String(i.version);
    if (i.outputs !== undefined) wire.outputs = i.outputs.map(String);
    if (i.parameters !== undefined) wire.parameters = i.parameters;
    if (i.correlationId !== undefined) wire.correlationId = i.correlationId;
    if (i.sequenceStart !== undefined) wire.sequenceStart = i.sequenceStart;
    if (i.sequenceEnd !== undefined) wire.sequenceEnd = i.sequenceEnd;
    if (i.timeout !== undefined) wire.timeout = i.timeout;
    if (i.priority !== undefined) wire.priority = i.priority;
    host(); // outside a sandbox this throws now, not at the deferred start
    const id = nextChildId();
    const callId = slot ? slot.callId : current.callId;
    children.set(id, { callId, response: onResponse, error: onError, complete: onComplete });
    startChild(callId, id, wire);
    return id;
  }

  exec(): Promise<InferenceResponse> {
    // The rejection arrives from the host later; keep the caller's frames so the error points at
    // the script line that made the call.
    const origin = new Error();
    return new Promise((resolve, reject) => {
      const got: WireResponse[] = [];
      this.#start(
        (r) => { if (r.outputs.length > 0 || r.parameters !== undefined) got.push(r); },
        (e) => reject(withOrigin(ModelError.fromWire(e), origin)),
        () => {
          if (got.length > 1) {
            reject(new ModelError(`model '${this.model}' sent ${got.length} responses to one request (it is decoupled); use stream() to read them`, 'UNSUPPORTED'));
          } else {
            resolve(responseFromWire(got[0] ?? { outputs: [] }));
          }
        },
      );
    });
  }

  stream(): AsyncIterable<InferenceResponse> {
    const self = this;
    const origin = new Error();
    return {
      [Symbol.asyncIterator](): AsyncIterator<InferenceResponse> {
        const queue: WireResponse[] = [];
        let failure: WireError | undefined;
        let finished = false;
        let wake: (() => void) | undefined;
        let id = 0;
        const poke = () => { const w = wake; wake = undefined; w?.(); };
        const stop = () => {
          if (!finished && id) cancelChild(id);
          finished = true;
          children.delete(id);
        };
        return {
          async next(): Promise<IteratorResult<InferenceResponse>> {
            if (!id) {
              id = self.#start(
                (r) => { if (r.outputs.length > 0 || r.parameters !== undefined) queue.push(r); poke(); },
                (e) => { failure = e; finished = true; poke(); },
                () => { finished = true; poke(); },
              );
            }
            for (;;) {
              const r = queue.shift();
              if (r) return { value: responseFromWire(r), done: false };
              if (failure) { const f = failure; failure = undefined; throw withOrigin(ModelError.fromWire(f), origin); }
              if (finished) return { value: undefined, done: true };
              await new Promise<void>((res) => { wake = res; });
            }
          },
          async return(): Promise<IteratorResult<InferenceResponse>> {
            stop();
            return { value: undefined, done: true };
          },
        };
      },
    };
  }
}

function withOrigin(e: ModelError, origin: Error): ModelError {
  const frames = (origin.stack ?? '').split('\n').slice(1).join('\n');
  e.stack = `${e.name}: ${e.message}\n${frames}`;
  return e;
}
