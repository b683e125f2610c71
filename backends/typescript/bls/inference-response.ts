import { ModelError, errorToWire } from './model-error.js';
import { Tensor, tensorFromWire, tensorToWire } from './tensor.js';
import type { WireResponse } from './wire.js';

export type ParamValue = string | number | boolean | bigint;
export type Parameters = Record<string, ParamValue>;

export interface InferenceResponseInit {
  outputs?: Tensor[];
  parameters?: Parameters;
  error?: ModelError | string;
}

export class InferenceResponse {
  readonly outputs: readonly Tensor[];
  readonly parameters: Parameters;
  readonly #error: ModelError | undefined;

  constructor(init: InferenceResponseInit = {}) {
    this.outputs = init.outputs ?? [];
    this.parameters = init.parameters ?? {};
    this.#error = typeof init.error === 'string' ? new ModelError(init.error) : init.error;
  }

  output(name: string): Tensor {
    const t = this.findOutput(name);
    if (!t) throw new ModelError(`response has no output '${name}' (outputs: ${this.outputs.map((o) => `'${o.name}'`).join(', ') || 'none'})`, 'INVALID_ARG');
    return t;
  }

  findOutput(name: string): Tensor | undefined {
    return this.outputs.find((o) => o.name === name);
  }

  hasError(): boolean {
    return this.#error !== undefined;
  }

  error(): ModelError | undefined {
    return this.#error;
  }
}

export function responseToWire(r: unknown, where: string): WireResponse {
  if (!(r instanceof InferenceResponse)) {
    throw new ModelError(`${where}: expected an InferenceResponse, got ${r === null ? 'null' : r === undefined ? 'undefined' : (r as object).constructor?.name ?? typeof r}`);
  }
  const e = r.error();
  if (e) return { outputs: [], error: errorToWire(e) };
  return { outputs: r.outputs.map(tensorToWire), parameters: r.parameters };
}

export function responseFromWire(w: WireResponse): InferenceResponse {
  return new InferenceResponse({
    outputs: w.outputs.map(tensorFromWire),
    parameters: (w.parameters ?? {}) as Parameters,
    ...(w.error ? { error: ModelError.fromWire(w.error) } : {}),
  });
}
