import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exposureWarnings, isLoopbackAddress, parseRestrictions, type FrontEndExposure } from '../../../src/frontend/restrict/index.js';

test('loopback addresses are told apart from every-interface and public ones', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) assert.equal(isLoopbackAddress(h), true, h);
  for (const h of ['0.0.0.0', '::', '[::]', '10.0.0.5', '192.168.1.2', '::2', 'fe80::1', '::ffff:10.0.0.1', 'example.com', '128.0.0.1']) assert.equal(isLoopbackAddress(h), false, h);
});

const admin = parseRestrictions('http-restricted-api', ['model-repository:k=v']);
const other = parseRestrictions('http-restricted-api', ['inference,health:k=v']);
const http = (host: string, restricted = false): FrontEndExposure => ({ name: 'HTTP', host, restrictions: restricted ? admin : other });
const grpc = (host: string, restricted = false): FrontEndExposure => ({ name: 'gRPC', host, restrictions: restricted ? admin : new Map() });

test('explicit model control on a non-loopback address without restriction: one warning per front end, naming the flag', () => {
  const w = exposureWarnings('explicit', [http('0.0.0.0'), grpc('::')]);
  assert.equal(w.length, 2);
  assert.match(w[0]!, /model-repository API \(load\/unload\) is reachable over HTTP on 0\.0\.0\.0 without restriction.*--http-restricted-api=model-repository:<header>=<secret>.*--http-address/);
  assert.match(w[1]!, /over gRPC on :: .*--grpc-restricted-protocol=model-repository:<header>=<secret>.*--grpc-address/);
});

test('no warning when restricted, on loopback, or when load/unload are off (none, poll)', () => {
  assert.deepEqual(exposureWarnings('explicit', [http('0.0.0.0', true), grpc('127.0.0.1')]), []);
  assert.deepEqual(exposureWarnings('none', [http('0.0.0.0'), grpc('0.0.0.0')]), []);
  assert.deepEqual(exposureWarnings('poll', [http('10.1.2.3')]), []);
  assert.equal(exposureWarnings('explicit', [http('127.0.0.1'), grpc('10.1.2.3')]).length, 1);
});
