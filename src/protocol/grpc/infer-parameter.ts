import type { ParamValue, Parameters } from '../../inference/index.js';
import type { InferParameterMsg, Int64, ParameterMap } from './messages.js';

const INT64_MAX = (1n << 63n) - 1n;

/** An int64 wire value as a number when it is exact, otherwise a bigint. */
export function int64Value(v: Int64): number | bigint {
  if (typeof v === 'number') return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
}

/** One InferParameter oneof as a plain value; undefined when no choice is set. */
export function parameterFromProto(p: InferParameterMsg): ParamValue | undefined {
  switch (p.parameter_choice) {
    case 'bool_param': return p.bool_param ?? false;
    case 'int64_param': return int64Value(p.int64_param ?? 0);
    case 'string_param': return p.string_param ?? '';
    case 'double_param': return p.double_param ?? 0;
    case 'uint64_param': return int64Value(p.uint64_param ?? 0);
    default: return undefined;
  }
}

/** A plain value as an InferParameter: integers become int64 (uint64 past int64's range), others double. */
export function parameterToProto(v: ParamValue): InferParameterMsg {
  switch (typeof v) {
    case 'boolean': return { bool_param: v };
    case 'string': return { string_param: v };
    case 'bigint': return v > INT64_MAX ? { uint64_param: v.toString() } : { int64_param: v.toString() };
    default: return Number.isInteger(v) ? { int64_param: v } : { double_param: v };
  }
}

export function parametersFromProto(map: ParameterMap | undefined): Parameters | undefined {
  if (!map) return undefined;
  let out: Parameters | undefined;
  for (const key of Object.keys(map)) {
    const v = parameterFromProto(map[key]!);
    if (v !== undefined) (out ??= {})[key] = v;
  }
  return out;
}

export function parametersToProto(params: Parameters | undefined): ParameterMap {
  const out: ParameterMap = {};
  if (params) for (const key of Object.keys(params)) out[key] = parameterToProto(params[key]!);
  return out;
}
