import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpOptionsFromFlags } from '../../src/cli/http-flags.js';
import { TributaryError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { makeCerts } from '../helpers/make-certs.js';

function logger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => {}, error: () => {}, verbose: () => {}, warn: (m) => { warnings.push(m); } };
}

const certs = makeCerts();
const f = certs.files;

/** The start-time error for `flags`; fails the test when there is none. */
function startError(flags: Record<string, string>): string {
  try {
    httpOptionsFromFlags(flags, logger());
  } catch (e) {
    assert.ok(e instanceof TributaryError, String(e));
    return e.message;
  }
  return assert.fail('expected an error');
}

test('defaults: 64 MiB input, 60 s headers, 300 s request, 1024 connections of which 256 pending; seconds become ms', () => {
  assert.deepEqual({ ...httpOptionsFromFlags({}, logger()) }, { maxInputSize: 64 * 2 ** 20, headerTimeoutMs: 60_000, requestTimeoutMs: 300_000, maxConnections: 1024, maxPendingConnections: 256 });
  const o = httpOptionsFromFlags({ 'http-max-input-size': '1000', 'http-header-timeout-secs': '5', 'http-request-timeout-secs': '0', 'http-max-connections': '0', 'http-max-pending-connections': '8' }, logger());
  assert.deepEqual({ ...o }, { maxInputSize: 1000, headerTimeoutMs: 5000, requestTimeoutMs: 0, maxConnections: 0, maxPendingConnections: 8 });
});

test('sizes and timeouts out of range name the flag', () => {
  assert.match(startError({ 'http-max-input-size': '0' }), /^--http-max-input-size expects an integer >= 1, got '0'/);
  assert.match(startError({ 'http-request-timeout-secs': '-1' }), /^--http-request-timeout-secs expects an integer from 0 to 86400/);
  assert.match(startError({ 'http-header-timeout-secs': '1.5' }), /^--http-header-timeout-secs expects an integer/);
  assert.match(startError({ 'http-max-connections': 'many' }), /^--http-max-connections expects an integer >= 0/);
  assert.match(startError({ 'http-max-pending-connections': '0' }), /^--http-max-pending-connections expects an integer >= 1, got '0'/);
});

test('TLS as tritonserver reads its gRPC flags: mutual implies TLS; certificate flags without TLS are ignored with a warning', () => {
  const mutual = httpOptionsFromFlags({ 'http-use-ssl-mutual': 'true', 'http-server-cert': f.serverCert, 'http-server-key': f.serverKey, 'http-root-cert': f.ca }, logger());
  assert.equal(mutual.tls?.mutual, true);
  assert.deepEqual(mutual.tls?.rootCert, certs.pem.ca);
  const log = logger();
  assert.equal(httpOptionsFromFlags({ 'http-server-cert': f.serverCert }, log).tls, undefined);
  assert.match(log.warnings.join('\n'), /--http-server-cert ignored: HTTP serves plain text unless --http-use-ssl=true/);
});

test('--http-use-ssl without a key, an unreadable file, or mutual TLS without a root cert name the flag', () => {
  assert.match(startError({ 'http-use-ssl': 'true', 'http-server-cert': f.serverCert }), /^--http-use-ssl=true needs --http-server-key/);
  assert.match(startError({ 'http-use-ssl': 'true', 'http-server-cert': join(certs.dir, 'missing.crt'), 'http-server-key': f.serverKey }), /^--http-server-cert: cannot read '.*missing.crt' \(ENOENT\)/);
  assert.match(startError({ 'http-use-ssl-mutual': 'true', 'http-server-cert': f.serverCert, 'http-server-key': f.serverKey }), /^--http-use-ssl-mutual=true needs --http-root-cert/);
});

test('a key that does not match the certificate, or a root certificate that does not parse, is refused without quoting either', () => {
  const mismatch = startError({ 'http-use-ssl': 'true', 'http-server-cert': f.serverCert, 'http-server-key': f.clientKey });
  assert.match(mismatch, /the server certificate \(--http-server-cert\) and key \(--http-server-key\) are not a usable PEM pair/);
  const junk = join(certs.dir, 'junk.pem');
  writeFileSync(junk, 'not a certificate');
  const bad = startError({ 'http-use-ssl-mutual': 'true', 'http-server-cert': f.serverCert, 'http-server-key': f.serverKey, 'http-root-cert': junk });
  assert.match(bad, /the root certificate \(--http-root-cert\) is not usable PEM/);
  assert.doesNotMatch(mismatch + bad, /BEGIN|PRIVATE KEY|not a certificate/);
});
