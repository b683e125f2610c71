import { boundedText } from './bounded-text.js';
import { host } from './host-channel.js';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  verbose(message: string): void;
}

/** Levels as the host's log channel numbers them. */
export const LOG_INFO = 0;
export const LOG_WARN = 1;
export const LOG_ERROR = 2;
export const LOG_VERBOSE = 3;

// Cut before the copy out of the sandbox; the host's logger bounds every line again.
export const logger: Logger = {
  info: (m) => host().log(LOG_INFO, boundedText(String(m))),
  warn: (m) => host().log(LOG_WARN, boundedText(String(m))),
  error: (m) => host().log(LOG_ERROR, boundedText(String(m))),
  verbose: (m) => host().log(LOG_VERBOSE, boundedText(String(m))),
};
