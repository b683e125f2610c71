/**
 * Splits a request body into gRPC length-prefixed messages (1-byte compressed flag, 4-byte
 * big-endian length, payload). A message that sits inside one received chunk is handed out as a
 * view of it (no copy); one spread over chunks is gathered into a buffer allocated once at its
 * full length (one copy, whatever the size).
 */
export interface DeframerEvents {
  message(payload: Buffer): void;
  /** The compressed flag was set or a length passed `maxBytes`; no more messages follow. */
  reject(reason: 'compressed' | 'too-large', length: number): void;
}

export interface MessageDeframer {
  push(chunk: Buffer): void;
  /** True when the body ended between messages (a cut message is a protocol error). */
  atBoundary(): boolean;
}

export function createMessageDeframer(maxBytes: number, on: DeframerEvents): MessageDeframer {
  const header = Buffer.alloc(5);
  let headerHave = 0;
  let body: Buffer | undefined;
  let bodyHave = 0;
  let stopped = false;

  const startBody = (flag: number, length: number): boolean => {
    if (flag !== 0) { stopped = true; on.reject('compressed', length); return false; }
    if (length > maxBytes) { stopped = true; on.reject('too-large', length); return false; }
    return true;
  };

  return {
    atBoundary: () => headerHave === 0 && body === undefined,
    push(chunk) {
      let pos = 0;
      while (pos < chunk.length && !stopped) {
        if (body !== undefined) {
          const n = Math.min(body.length - bodyHave, chunk.length - pos);
          chunk.copy(body, bodyHave, pos, pos + n);
          bodyHave += n;
          pos += n;
          if (bodyHave === body.length) {
            const done = body;
            body = undefined;
            on.message(done);
          }
          continue;
        }
        if (headerHave === 0 && chunk.length - pos >= 5) {
          // Fast path: the header, and usually the whole message, are in this chunk.
          const length = chunk.readUInt32BE(pos + 1);
          if (!startBody(chunk[pos]!, length)) return;
          pos += 5;
          if (chunk.length - pos >= length) {
            on.message(chunk.subarray(pos, pos + length));
            pos += length;
          } else {
            body = Buffer.allocUnsafe(length);
            bodyHave = 0;
          }
          continue;
        }
        const n = Math.min(5 - headerHave, chunk.length - pos);
        chunk.copy(header, headerHave, pos, pos + n);
        headerHave += n;
        pos += n;
        if (headerHave === 5) {
          headerHave = 0;
          const length = header.readUInt32BE(1);
          if (!startBody(header[0]!, length)) return;
          if (length === 0) on.message(Buffer.alloc(0));
          else { body = Buffer.allocUnsafe(length); bodyHave = 0; }
        }
      }
    },
  };
}
