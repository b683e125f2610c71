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


const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A uint64 parameter (Triton reads these with AsUInt). Past 2^53 it arrives as a bigint: a
 * sequence ID keeps it exact; a priority or timeout that large is taken as the nearest number
 * (a level far past any configured one, a timeout of centuries).
 */
function uint64(key: string, v: ParamValue, transport: Transport): bigint {
  const n = typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : v;
  if (typeof n !== 'bigint' || n < 0n || n > UINT64_MAX) {
    const shown = typeof v === 'string' ? JSON.stringify(v) : String(v);
    const wrongType = typeof v !== 'number' && typeof v !== 'bigint';
    throw Errors.requestParameterReserved(key, transport, 'a non-negative integer below 2^64', shown, wrongType);
  }
  return n;
}

function uint(key: string, v: ParamValue, transport: Transport): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : Number(uint64(key, v, transport));
}

function bool(key: string, v: ParamValue, transport: Transport): boolean {
  if (typeof v !== 'boolean') throw Errors.requestParameterReserved(key, transport, 'a boolean', JSON.stringify(String(v)), true);
  return v;
}

/**
 * A parameter value from JSON: primitives only (gRPC InferParameter has no nesting). `lossy`: the
 * value came from JSON.parse, where an integer past 2^53 (a sequence ID, an int64 parameter) may
 * have been rounded; meeting one throws requestJsonInexact so the text is parsed exactly.
 */
export function checkParamValue(where: string, key: string, v: unknown, lossy = false): ParamValue {
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) {
    if (lossy && Number.isInteger(v) && !Number.isSafeInteger(v)) throw Errors.requestJsonInexact(`${where} parameter '${key}'`);
    return v;
  }
  throw Errors.requestParameterType(where, key, 'a string, number or boolean', v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);
}

/** Which front end the parameters came through: Triton words their refusals differently. */
type Transport = 'http' | 'grpc';

export function parseRequestParameters(params: Parameters | undefined, transport: Transport = 'http'): ParsedRequestParameters {
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
        else seqId = uint64(key, v, transport);
        break;
      case 'sequence_start': start = bool(key, v, transport); break;
      case 'sequence_end': end = bool(key, v, transport); break;
      case 'priority': out.fields.priority = uint(key, v, transport); break;
      case 'timeout': out.fields.timeoutUs = uint(key, v, transport); break;
      case 'binary_data_output': out.binaryDataOutput = bool(key, v, transport); break;
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
