import { ServerCredentials } from '@grpc/grpc-js';
import { Errors } from '../../errors.js';
import { checkTlsMaterial, type TlsMaterial } from '../transport/index.js';

/** TLS for the gRPC front end, with tritonserver's meanings (PEM contents, not file names). */
export type GrpcTlsOptions = TlsMaterial;

/**
 * Insecure credentials without `tls`; otherwise TLS, refusing at start what would only fail at the
 * first handshake (a key that does not match the certificate, PEM that does not parse) with the
 * flags to fix. The PEM contents never appear in a message: a key put in the wrong flag stays secret.
 */
export function serverCredentials(tls: GrpcTlsOptions | undefined): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  checkTlsMaterial(tls, 'grpc', Errors.grpcTlsInvalid);
  return ServerCredentials.createSsl(tls.rootCert ?? null, [{ cert_chain: tls.cert, private_key: tls.key }], tls.mutual === true);
}

