import { host } from './host-channel.js';
import { flushSends, queueSend } from './send-queue.js';
import { responseToWire, type InferenceResponse, type Parameters } from './inference-response.js';
import { ModelError } from './model-error.js';
import { tensorFromWire, type Tensor } from './tensor.js';
import type { WireRequest } from './wire.js';

export interface SendOptions { final?: boolean }
export interface ResponseSender {
  send(response: InferenceResponse | undefined, options?: SendOptions): Promise<void>;
}

/** Where a Request sits in the host's bookkeeping (kept off the object scripts see). */
export interface RequestSlot { callId: number; index: number }
export const slots = new WeakMap<Request, RequestSlot>();

/** One request of the batch handed to `execute`. */
export class Request {
  readonly id: string;
  readonly inputs: readonly Tensor[];
  readonly parameters: Parameters;
  readonly requestedOutputNames: readonly string[];
  readonly correlationId: bigint | string | undefined;
  readonly #decoupled: boolean;
  #sender: ResponseSender | undefined;

  constructor(w: WireRequest, callId: number, index: number, decoupled: boolean) {
    this.id = w.id;
    this.inputs = w.inputs.map(tensorFromWire);
    this.parameters = w.parameters as Parameters;
    this.requestedOutputNames = w.outputs;
    this.correlationId = w.correlationId;
    this.#decoupled = decoupled;
    slots.set(this, { callId, index });
  }

  input(name: string): Tensor {
    for (const t of this.inputs) if (t.name === name) return t;
    throw new ModelError(`request has no input '${name}' (inputs: ${this.inputs.map((t) => `'${t.name}'`).join(', ') || 'none'})`, 'INVALID_ARG');
  }

  hasInput(name: string): boolean {
    return this.inputs.some((t) => t.name === name);
  }

  isCancelled(): boolean {
    const s = slots.get(this)!;
    // The host closes a request on its final response, or on one it refuses: let it see them first.
    flushSends();
    return host().isCancelled(s.callId, s.index);
  }

  responseSender(): ResponseSender {
    if (!this.#decoupled) {
      throw new ModelError('responseSender() is only for decoupled models (config model_transaction_policy { decoupled: true }); return responses from execute() instead', 'UNSUPPORTED');
    }
    if (!this.#sender) {
      const s = slots.get(this)!;
      let closed = false;
      this.#sender = {
        send(response, options) {
          if (closed) throw new ModelError('response sender is closed: a final response was already sent', 'INVALID_ARG');
          const final = options?.final === true;
          if (final) closed = true;
          const w = response === undefined ? null : responseToWire(response, 'ResponseSender.send');
          return queueSend(s.callId, s.index, w, final);
        },
      };
    }
    return this.#sender;
  }
}
