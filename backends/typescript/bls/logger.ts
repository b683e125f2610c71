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

export const logger: Logger = {
  info: (m) => host().log(LOG_INFO, String(m)),
  warn: (m) => host().log(LOG_WARN, String(m)),
  error: (m) => host().log(LOG_ERROR, String(m)),
  verbose: (m) => host().log(LOG_VERBOSE, String(m)),
};
