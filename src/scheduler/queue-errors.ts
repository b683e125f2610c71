import type { CancelSignal } from '../inference/index.js';
import { Errors, TributaryError } from '../errors.js';

/** Queued requests fail this way when their scheduler stops (model unload). */
export function stoppedError(model: string): TributaryError {
  return Errors.modelUnloading(model);
}

/** The signal's reason when it is a catalog error (a deadline abort), else CANCELLED. */
export function abortReason(signal: CancelSignal, model: string): TributaryError {
  return signal.reason instanceof TributaryError ? signal.reason : Errors.cancelled(model);
}
