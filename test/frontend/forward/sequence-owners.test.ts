import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSequenceOwners, routingKeyOf, sequenceHash, sequenceKey } from '../../../src/frontend/forward/index.js';

test('every replica agrees on a sequence\'s owner, and the sequences spread over all of them', () => {
  const replicas = [1, 2, 3].map((slot) => createSequenceOwners(slot, 3));
  const owned = new Map<number, number>();
  for (let id = 1; id <= 300; id++) {
    const key = String(id);
    // The one replica for which ownerOf is undefined (its own), named by every other.
    const self = replicas.filter((r) => r.ownerOf(key) === undefined).map((r) => r.slot);
    assert.equal(self.length, 1, `sequence ${id}`);
    for (const r of replicas) if (r.slot !== self[0]) assert.equal(r.ownerOf(key), self[0]);
    owned.set(self[0]!, (owned.get(self[0]!) ?? 0) + 1);
  }
  assert.equal(owned.size, 3);
  for (const n of owned.values()) assert.ok(n > 60, `an uneven spread: ${[...owned.values()].join('/')}`);
});

test('the hash is FNV-1a over the id\'s string form, fixed across versions', () => {
  // Published FNV-1a 32-bit vectors: "" and "a".
  assert.equal(sequenceHash(''), 0x811c9dc5);
  assert.equal(sequenceHash('a'), 0xe40c292c);
  assert.equal(sequenceKey(42), '42');
  assert.equal(sequenceKey(42n), '42');
  assert.equal(sequenceKey('42'), '42');
});

test('sequence id 0 and "" are no sequence; the routing header is percent-decoded', () => {
  assert.equal(sequenceKey(0), undefined);
  assert.equal(sequenceKey(0n), undefined);
  assert.equal(sequenceKey(''), undefined);
  assert.equal(sequenceKey(undefined), undefined);
  assert.equal(routingKeyOf('user%2F7'), 'user/7');
  assert.equal(routingKeyOf('%E0%A4%A'), '%E0%A4%A');
  assert.equal(routingKeyOf(''), undefined);
  assert.equal(routingKeyOf(undefined), undefined);
});

test('an owner is down until the table names its ports', () => {
  const owners = createSequenceOwners(1, 2);
  assert.equal(owners.portsOf(2), undefined);
  owners.setTable({ 1: { http: 1001, grpc: 1002 }, 2: { http: 2001, grpc: 2002 } });
  assert.deepEqual(owners.portsOf(2), { http: 2001, grpc: 2002 });
  owners.setTable({ 1: { http: 1001, grpc: 1002 } });
  assert.equal(owners.portsOf(2), undefined);
});
