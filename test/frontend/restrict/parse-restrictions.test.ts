import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Errors, TributaryError } from '../../../src/errors.js';
import { GRPC_HEADER_PREFIX, parseRestrictions, RESTRICTED_CATEGORIES } from '../../../src/frontend/restrict/index.js';

const sha = (s: string) => createHash('sha256').update(s).digest();

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(Errors.restrictFlagInvalid.is(e), `expected TRB_RESTRICT_FLAG_INVALID, got ${String(e)}`);
    assert.equal((e as TributaryError).kind, 'INVALID_ARG');
    return (e as TributaryError).message;
  }
  assert.fail('expected the flag to be refused');
}

test('one group per value; every listed category gets the header and the value digest', () => {
  const t = parseRestrictions('http-restricted-api', ['model-repository,shared-memory:Admin-Key=s3cret', 'inference:infer-key=other']);
  assert.deepEqual([...t.keys()].sort(), ['inference', 'model-repository', 'shared-memory']);
  const admin = t.get('model-repository')!;
  assert.equal(admin.header, 'Admin-Key', 'shown as the operator wrote it');
  assert.equal(admin.key, 'admin-key', 'looked up in lower case, as node delivers header names');
  assert.deepEqual(admin.digest, sha('s3cret'));
  assert.equal(t.get('shared-memory'), admin, 'one group, one restriction');
  assert.deepEqual(t.get('inference')!.digest, sha('other'));
  assert.equal(t.get('health'), undefined, 'categories not listed stay open');
});

test('gRPC keys get the triton-grpc-protocol- prefix; HTTP keys are used as given', () => {
  assert.equal(GRPC_HEADER_PREFIX, 'triton-grpc-protocol-');
  const g = parseRestrictions('grpc-restricted-protocol', ['health:infer-key=v']).get('health')!;
  assert.equal(g.header, 'triton-grpc-protocol-infer-key');
  assert.equal(g.key, 'triton-grpc-protocol-infer-key');
  assert.equal(parseRestrictions('http-restricted-api', ['health:infer-key=v']).get('health')!.header, 'infer-key');
});

test('the value is everything after the first = past the first colon (it may hold : and =)', () => {
  const r = parseRestrictions('http-restricted-api', ['trace:k=a:b=c=']).get('trace')!;
  assert.deepEqual(r.digest, sha('a:b=c='));
});

test('every Triton category is accepted, and nothing is restricted without the flag', () => {
  assert.deepEqual([...RESTRICTED_CATEGORIES], ['health', 'metadata', 'inference', 'shared-memory', 'model-config', 'model-repository', 'statistics', 'trace', 'logging']);
  assert.equal(parseRestrictions('http-restricted-api', [RESTRICTED_CATEGORIES.join(',') + ':k=v']).size, 9);
  assert.equal(parseRestrictions('grpc-restricted-protocol', []).size, 0);
});

test('a malformed value is refused with the expected form, without echoing the secret', () => {
  for (const bad of ['health', 'health:key', 'health:key=', ':key=v', 'health:=v', 'health=TOPSECRET', '']) {
    const m = refusal(() => parseRestrictions('http-restricted-api', [bad]));
    assert.match(m, /^--http-restricted-api: expected <category>\[,<category>\.\.\.\]:<header>=<value>, got /, bad);
    assert.ok(!m.includes('TOPSECRET'), m);
  }
});

test('an unknown category is refused, naming it and the known ones (api for HTTP, protocol for gRPC)', () => {
  assert.match(refusal(() => parseRestrictions('http-restricted-api', ['health,infer:k=v'])),
    /^--http-restricted-api: unknown restricted api "infer"; the categories are health, metadata, inference, shared-memory, model-config, model-repository, statistics, trace, logging, openai$/);
  assert.match(refusal(() => parseRestrictions('grpc-restricted-protocol', ['Health:k=v'])), /unknown restricted protocol "Health"/, 'names are exact, as in tritonserver');
  assert.match(refusal(() => parseRestrictions('grpc-restricted-protocol', ['health,,metadata:k=v'])), /unknown restricted protocol ""/);
  assert.match(refusal(() => parseRestrictions('grpc-restricted-protocol', [' health:k=v'])), /unknown restricted protocol " health"/);
});

test('openai (the OpenAI-compatible API) is an HTTP category only: gRPC has no such methods', () => {
  assert.equal(parseRestrictions('http-restricted-api', ['openai,inference:k=v']).get('openai')!.header, 'k');
  assert.match(refusal(() => parseRestrictions('grpc-restricted-protocol', ['openai:k=v'])),
    /^--grpc-restricted-protocol: unknown restricted protocol "openai"; the categories are health, metadata, inference, shared-memory, model-config, model-repository, statistics, trace, logging$/);
});

test('a category in two groups (or twice in one) is refused, as tritonserver does', () => {
  assert.match(refusal(() => parseRestrictions('http-restricted-api', ['health:a=1', 'metadata,health:b=2'])),
    /^--http-restricted-api: restricted api 'health' can not be specified in multiple config groups/);
  assert.match(refusal(() => parseRestrictions('grpc-restricted-protocol', ['trace,trace:k=v'])), /restricted protocol 'trace' can not be specified in multiple config groups/);
});

test('a header name that no client could send is refused at start', () => {
  for (const bad of ['my key', 'k\u00e9y', 'a:b', 'x\ty']) {
    assert.match(refusal(() => parseRestrictions('http-restricted-api', [`health:${bad}=v`])), /is not a valid header name/, bad);
  }
});
