/** gRPC status codes this front end sets itself (handlers bring theirs from the status table). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  OUT_OF_RANGE: 11,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
} as const;

/**
 * `grpc-message` is percent-encoded: bytes outside printable ASCII (0x20-0x7E) and '%' itself
 * become %XX of their UTF-8 bytes (PROTOCOL-HTTP2.md, "Responses").
 */
export function encodeGrpcMessage(message: string): string {
  if (/^[\x20-\x24\x26-\x7e]*$/.test(message)) return message;
  let out = '';
  for (const b of Buffer.from(message, 'utf8')) {
    out += b >= 0x20 && b <= 0x7e && b !== 0x25 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
