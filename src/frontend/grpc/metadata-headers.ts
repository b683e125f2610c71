import type { Metadata } from '@grpc/grpc-js';
import type { CallerHeaders } from '../../dataplane/index.js';

/**
 * A call's metadata as the data plane reads a caller's headers. A stream's requests share one, so
 * the full list (header forwarding only) is built once, on first use.
 */
export class MetadataHeaders implements CallerHeaders {
  readonly #metadata: Metadata;
  #entries: [string, unknown][] | undefined;

  constructor(metadata: Metadata) {
    this.#metadata = metadata;
  }

  get(name: string): string | undefined {
    const value = this.#metadata.get(name)[0];
    return typeof value === 'string' ? value : undefined;
  }

  entries(): Iterable<readonly [string, unknown]> {
    return (this.#entries ??= Object.entries(this.#metadata.toJSON()));
  }
}
