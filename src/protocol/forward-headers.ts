/**
 * Triton's header forwarding (--http-header-forward-pattern, --grpc-header-forward-pattern): the
 * headers of an inference request whose name matches the pattern become string request parameters,
 * which a model or script reads like any other. Their size is the transport's to bound: node's
 * HTTP parser stops at 16 KiB of headers, grpc-js at its metadata limit.
 */
import { Errors } from '../errors.js';
import { isReservedParameter, type Parameters } from '../inference/index.js';

/** Triton's way to turn its default case-insensitive match off (RE2 syntax JavaScript lacks before V8 12.5). */
const CASE_SENSITIVE_PREFIX = '(?-i)';

/**
 * The flag's pattern, as Triton applies it: it must match the whole header name, case-insensitively
 * (header names are) unless it starts with `(?-i)`.
 */
export function compileHeaderPattern(flag: string, source: string): RegExp {
  const sensitive = source.startsWith(CASE_SENSITIVE_PREFIX);
  const body = sensitive ? source.slice(CASE_SENSITIVE_PREFIX.length) : source;
  try {
    return new RegExp(`^(?:${body})$`, sensitive ? '' : 'i');
  } catch (e) {
    throw Errors.headerPatternInvalid(flag, source, (e as Error).message.replace(/^Invalid regular expression: /, ''));
  }
}

/**
 * `parameters` with every matching header added as a string. A header named like a reserved
 * parameter is refused (INVALID_ARG, as Triton's); one named like a parameter of the request body
 * leaves the body's value (the client's explicit choice). Repeated headers join with ', ' (HTTP's
 * own folding); binary gRPC metadata (`-bin` keys) is skipped.
 */
export function forwardHeaders(
  pattern: RegExp | undefined,
  model: string,
  headers: Iterable<readonly [string, unknown]>,
  parameters: Parameters | undefined,
): Parameters | undefined {
  if (!pattern) return parameters;
  let out = parameters;
  for (const [name, value] of headers) {
    if (!pattern.test(name)) continue;
    const text = headerText(value);
    if (text === undefined) continue;
    if (isReservedParameter(name)) throw Errors.headerReserved(model, name);
    const into: Parameters = out === parameters ? { ...parameters } : out!;
    if (!(name in into)) into[name] = text;
    out = into;
  }
  return out;
}

function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const texts = value.filter((v): v is string => typeof v === 'string');
    return texts.length > 0 ? texts.join(', ') : undefined;
  }
  return undefined;
}
