import type { IncomingHttpHeaders } from 'node:http';
import type { CallerHeaders } from '../../dataplane/index.js';

/** An HTTP request's headers as the data plane reads a caller's (node already lower-cased the names). */
export class RequestHeaders implements CallerHeaders {
  readonly #headers: IncomingHttpHeaders;

  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }

  get(name: string): string | undefined {
    const value = this.#headers[name];
    return typeof value === 'string' ? value : undefined;
  }

  entries(): Iterable<readonly [string, unknown]> {
    return Object.entries(this.#headers);
  }
}
