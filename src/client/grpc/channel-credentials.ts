import { credentials, type ChannelCredentials } from '@grpc/grpc-js';
import { ClientError } from '../client-error.js';
import type { TlsClientOptions } from '../types.js';

const pem = (v: string | Uint8Array | undefined) => (v === undefined ? null : Buffer.from(v));

/**
 * The channel target and credentials for an address: `host:port` or `grpc://host:port` in plain
 * text unless `tls` is given; `grpcs://host:port` is TLS (with the system's roots unless `tls.ca`).
 * The server's name is checked against its certificate as grpc-js always does.
 */
export function channelCredentials(address: string, tls: TlsClientOptions | undefined): { target: string; credentials: ChannelCredentials } {
  const secure = /^grpcs:\/\//i.test(address);
  const target = address.replace(/^grpcs?:\/\//i, '');
  const t = tls ?? (secure ? {} : undefined);
  if (!t) return { target, credentials: credentials.createInsecure() };
  if ((t.cert === undefined) !== (t.key === undefined)) {
    throw new ClientError('gRPC client: tls.cert and tls.key go together (a client certificate needs its private key)', { kind: 'INVALID_ARG' });
  }
  return { target, credentials: credentials.createSsl(pem(t.ca), pem(t.key), pem(t.cert)) };
}
