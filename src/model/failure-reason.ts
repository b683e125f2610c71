import { Errors, type TributaryError } from '../errors.js';
import type { FailureReason } from './statistics.js';

/** Triton's failure reason (nv_inference_request_failure's `reason`) for an error. */
export function failureReasonOf(err: TributaryError): FailureReason {
  if (Errors.cancelled.is(err)) return 'CANCELED';
  if (Errors.queueFull.is(err) || Errors.timeout.is(err) || err.kind === 'INVALID_ARG' || err.kind === 'NOT_FOUND') return 'REJECTED';
  if (err.kind === 'INTERNAL' || Errors.backendFailed.is(err) || Errors.scriptError.is(err)) return 'BACKEND';
  return 'OTHER';
}
