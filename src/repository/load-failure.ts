/**
 * Load failures in Triton's words, which clients match on (core model_repository_manager.cc and
 * model_lifecycle.cc): a load that fails before any version is tried (the model is in no
 * repository, the `config` or `file:` parameters are bad) is "failed to load '<m>', failed to
 * poll from model repository"; one whose versions fail is INVALID_ARG "load failed for model
 * '<m>': version <v> is at UNAVAILABLE state: <Status>: <reason>;". Our own detail follows.
 * Triton's status for the first is INTERNAL; where the request's own content is refused (a bad
 * `config`, a refused `file:` key, a config file that is a link out of its directory) ours is
 * INVALID_ARG, since only the client can fix it (docs/errors.md lists the deviation).
 */
import { Errors, toTributaryError, type ErrorKind, type TributaryError } from '../errors.js';

/** Triton's Status::CodeString, which it puts before each version's reason. */
const STATUS_WORDS: Readonly<Record<ErrorKind, string>> = {
  UNKNOWN: 'Unknown', INTERNAL: 'Internal', NOT_FOUND: 'Not found', INVALID_ARG: 'Invalid argument',
  UNAVAILABLE: 'Unavailable', UNSUPPORTED: 'Unsupported', ALREADY_EXISTS: 'Already exists', CANCELLED: 'Cancelled',
};

const isTritonShaped = (e: TributaryError) => Errors.loadPollFailed.is(e) || Errors.loadRefused.is(e) || Errors.loadVersionsFailed.is(e);

/** The reason without the "failed to load '<m>': " our errors start with. */
function detail(model: string, e: TributaryError): string {
  const prefix = `failed to load '${model}': `;
  return e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

/** A failure before any version was tried, as Triton reports a model it could not poll. */
export function pollFailure(model: string, e: unknown): TributaryError {
  const err = toTributaryError(e);
  if (isTritonShaped(err)) return err;
  if (Errors.modelNotFound.is(err)) return Errors.loadPollFailed(model, 'model not found in any model repository');
  if (err.kind === 'INVALID_ARG') return Errors.loadRefused(model, detail(model, err));
  return Errors.loadPollFailed(model, detail(model, err));
}

/** Every tried version failed: Triton lists each version with its state and reason. */
export function versionFailures(model: string, failures: ReadonlyArray<readonly [number, TributaryError]>): TributaryError {
  const parts = failures.map(([v, e]) => `version ${v} is at UNAVAILABLE state: ${STATUS_WORDS[e.kind]}: ${detail(model, e)};`);
  return Errors.loadVersionsFailed(model, parts.join(''));
}

/** Any other failure of a load (a composing model, the version policy) in Triton's load shape. */
export function loadFailure(model: string, e: unknown): TributaryError {
  const err = toTributaryError(e);
  // A request that is wrong before it reaches the repository (Triton refuses it up front too).
  if (Errors.loadParameterInvalid.is(err)) return err;
  const own = err.message.startsWith(`failed to load '${model}', `) || err.message.startsWith(`load failed for model '${model}': `);
  if (isTritonShaped(err) && own) return err;
  return Errors.loadVersionsFailed(model, isTritonShaped(err) ? err.message : detail(model, err));
}
