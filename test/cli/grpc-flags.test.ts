import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grpcOptionsFromFlags } from '../../src/cli/grpc-flags.js';
import type { Logger } from '../../src/logger.js';
import { makeCerts } from '../helpers/make-certs.js';

function logger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => {}, error: () => {}, verbose: () => {}, warn: (m) => { warnings.push(m); } };
}

test('the gRPC input limit defaults to 64 MiB and follows --http-max-input-size unless set itself', () => {
  assert.equal(grpcOptionsFromFlags({}, logger()).maxInputBytes, 64 * 2 ** 20);
  assert.equal(grpcOptionsFromFlags({ 'http-max-input-size': '1000' }, logger()).maxInputBytes, 1000);
  assert.equal(grpcOptionsFromFlags({ 'http-max-input-size': '1000', 'grpc-max-input-size': '2000' }, logger()).maxInputBytes, 2000);
  assert.equal(grpcOptionsFromFlags({ 'http-max-input-size': String(2 ** 40) }, logger()).maxInputBytes, 2 ** 31 - 1, 'capped at gRPC\'s own bound');
  assert.throws(() => grpcOptionsFromFlags({ 'grpc-max-input-size': '0' }, logger()), /--grpc-max-input-size expects an integer from 1 to 2147483647, got '0'/);
  assert.throws(() => grpcOptionsFromFlags({ 'grpc-max-input-size': String(2 ** 31) }, logger()), /--grpc-max-input-size expects an integer/);
});

test('connection and stream bounds have defaults and are checked', () => {
  const o = grpcOptionsFromFlags({}, logger());
  assert.equal(o.maxConnections, 1024);
  assert.equal(o.maxConcurrentStreams, 128);
  assert.equal(grpcOptionsFromFlags({ 'grpc-max-connections': '3', 'grpc-max-concurrent-streams': '4' }, logger()).maxConnections, 3);
  assert.throws(() => grpcOptionsFromFlags({ 'grpc-max-connections': '0' }, logger()), /--grpc-max-connections expects an integer >= 1/);
  assert.throws(() => grpcOptionsFromFlags({ 'grpc-max-concurrent-streams': 'x' }, logger()), /--grpc-max-concurrent-streams expects an integer/);
});

test('connection timeouts and the pending bound: defaults close silent connections within 5 s; 0 turns a timeout off', () => {
  const o = grpcOptionsFromFlags({}, logger());
  assert.deepEqual([o.maxPendingConnections, o.handshakeTimeoutMs, o.idleTimeoutMs], [256, 5000, 60_000]);
  const set = grpcOptionsFromFlags({ 'grpc-max-pending-connections': '16', 'grpc-handshake-timeout-ms': '0', 'grpc-idle-timeout-ms': '250' }, logger());
  assert.deepEqual([set.maxPendingConnections, set.handshakeTimeoutMs, set.idleTimeoutMs], [16, 0, 250]);
  assert.throws(() => grpcOptionsFromFlags({ 'grpc-max-pending-connections': '0' }, logger()), /--grpc-max-pending-connections expects an integer >= 1, got '0'/);
  assert.throws(() => grpcOptionsFromFlags({ 'grpc-handshake-timeout-ms': '-1' }, logger()), /--grpc-handshake-timeout-ms expects an integer from 0 to 86400000/);
  assert.throws(() => grpcOptionsFromFlags({ 'grpc-idle-timeout-ms': '1.5' }, logger()), /--grpc-idle-timeout-ms expects an integer/);
});

test('TLS as tritonserver reads it: mutual implies TLS; certificate flags without TLS are ignored with a warning', () => {
  const certs = makeCerts();
  const files = { 'grpc-server-cert': certs.files.serverCert, 'grpc-server-key': certs.files.serverKey, 'grpc-root-cert': certs.files.ca };
  const log = logger();
  assert.equal(grpcOptionsFromFlags(files, log).tls, undefined);
  assert.deepEqual(log.warnings, ['--grpc-server-cert, --grpc-server-key, --grpc-root-cert ignored: gRPC serves plain text unless --grpc-use-ssl=true or --grpc-use-ssl-mutual=true']);
  const mutual = grpcOptionsFromFlags({ ...files, 'grpc-use-ssl-mutual': 'true' }, logger()).tls!;
  assert.equal(mutual.mutual, true);
  assert.ok(mutual.cert.equals(certs.pem.serverCert) && mutual.key.equals(certs.pem.serverKey) && mutual.rootCert!.equals(certs.pem.ca));
  const plainTls = grpcOptionsFromFlags({ 'grpc-use-ssl': '1', 'grpc-server-cert': files['grpc-server-cert'], 'grpc-server-key': files['grpc-server-key'] }, logger()).tls!;
  assert.equal(plainTls.mutual, false);
  assert.equal(plainTls.rootCert, undefined);
});
