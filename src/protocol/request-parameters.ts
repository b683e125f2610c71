/**
 * Request-level parameters: the reserved ones (sequence_id, sequence_start, sequence_end, priority,
 * timeout) become InferenceRequest fields; wire-only ones (binary_data_output, headers) are taken
 * out; everything else passes through to the model. Shared by the HTTP and gRPC decoders.
 */
import { Errors } from '../errors.js';
import type { InferenceRequest, ParamValue, Parameters } from '../inference/index.js';

export interface ParsedRequestParameters {
  fields: Pick<InferenceRequest, 'priority' | 'timeoutUs' | 'sequence'>;
  parameters?: Parameters;
  /** `binary_data_output` if given. */
  binaryDataOutput?: boolean;
}


function uint(key: string, v: ParamValue): number {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw Errors.requestParameterType('request', key, 'a non-negative integer', JSON.stringify(String(v)));
  }
  return n;
}

function bool(key: string, v: ParamValue): boolean {
  if (typeof v !== 'boolean') throw Errors.requestParameterType('request', key, 'a boolean', JSON.stringify(String(v)));
  return v;
}

/** A parameter value from JSON: primitives only (gRPC InferParameter has no nesting). */
export function checkParamValue(where: string, key: string, v: unknown): ParamValue {
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  throw Errors.requestParameterType(where, key, 'a string, number or boolean', v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);
}

export function parseRequestParameters(params: Parameters | undefined): ParsedRequestParameters {
  const out: ParsedRequestParameters = { fields: {} };
  if (!params) return out;
  let rest: Parameters | undefined;
  let seqId: bigint | string | undefined;
  let start: boolean | undefined;
  let end: boolean | undefined;
  for (const key of Object.keys(params)) {
    const v = params[key]!;
    switch (key) {
      case 'sequence_id':
        if (typeof v === 'string') seqId = v;
        else seqId = BigInt(uint(key, v));
        break;
      case 'sequence_start': start = bool(key, v); break;
      case 'sequence_end': end = bool(key, v); break;
      case 'priority': out.fields.priority = uint(key, v); break;
      case 'timeout': out.fields.timeoutUs = uint(key, v); break;
      case 'binary_data_output': out.binaryDataOutput = bool(key, v); break;
      case 'headers': break;
      default:
        (rest ??= {})[key] = v;
    }
  }
  if (seqId !== undefined || start !== undefined || end !== undefined) {
    out.fields.sequence = { id: seqId ?? 0n, start: start ?? false, end: end ?? false };
  }
  if (rest) out.parameters = rest;
  return out;
}
