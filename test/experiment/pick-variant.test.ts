/** Routing choices (src/experiment/pick-variant.ts): the stable hash, the weights, the routing key. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickVariant, routingKey, stablePoint } from '../../src/experiment/pick-variant.js';
import type { ExperimentPlan, PlanSticky } from '../../src/experiment/experiment-plan.js';

function plan(weights: number[], sticky?: PlanSticky): ExperimentPlan {
  let upTo = 0;
  const variants = weights.map((weight, i) => ({ experiment: 'e', variant: `v${i}`, model: `v${i}`, version: undefined, weight, upTo: (upTo += weight) }));
  return { name: 'e', variants, total: upTo, sticky, mirror: undefined, decoupled: false };
}

test('the stable point is the same for the same text, in [0, 1), and spreads short keys', () => {
  assert.equal(stablePoint('alice'), stablePoint('alice'));
  assert.notEqual(stablePoint('alice'), stablePoint('alicf'));
  const points = Array.from({ length: 1000 }, (_, i) => stablePoint(`user-${i}`));
  assert.ok(points.every((p) => p >= 0 && p < 1));
  // Ten buckets of about 100 each: a hash that clumped short keys would leave some nearly empty.
  const buckets = new Array<number>(10).fill(0);
  for (const p of points) buckets[Math.floor(p * 10)]!++;
  assert.ok(buckets.every((n) => n > 60 && n < 140), JSON.stringify(buckets));
});

test('a point falls to the variant owning it on the cumulative weights; a weight-0 variant owns none', () => {
  const p = plan([50, 0, 30, 20]);
  assert.equal(pickVariant(p, 0).variant, 'v0');
  assert.equal(pickVariant(p, 0.4999).variant, 'v0');
  assert.equal(pickVariant(p, 0.5).variant, 'v2');
  assert.equal(pickVariant(p, 0.79).variant, 'v2');
  assert.equal(pickVariant(p, 0.8).variant, 'v3');
  assert.equal(pickVariant(p, 0.999999).variant, 'v3');
  for (let i = 0; i < 1000; i++) assert.notEqual(pickVariant(p, i / 1000).variant, 'v1');
  // Weights are relative: 95/5 is the same split as 19/1.
  assert.equal(pickVariant(plan([19, 1]), 0.949).variant, 'v0');
  assert.equal(pickVariant(plan([19, 1]), 0.951).variant, 'v1');
});

test('the routing key: a sequence goes by its correlation id, else the sticky header or parameter, else none', () => {
  const byHeader = plan([1, 1], { header: 'x-user' });
  assert.equal(routingKey(byHeader, { model: 'e', inputs: [], routingHeaders: { 'x-user': 'alice' } }), 'alice');
  assert.equal(routingKey(byHeader, { model: 'e', inputs: [] }), undefined, 'no header: weighted random');
  assert.equal(routingKey(byHeader, { model: 'e', inputs: [], parameters: { 'x-user': 'alice' } }), undefined, 'a parameter is not a header');
  const byParameter = plan([1, 1], { parameter: 'user' });
  assert.equal(routingKey(byParameter, { model: 'e', inputs: [], parameters: { user: 42 } }), '42');
  const seq = { model: 'e', inputs: [], routingHeaders: { 'x-user': 'alice' }, sequence: { id: 7n, start: true, end: false } };
  assert.equal(routingKey(byHeader, seq), 'n:7');
  assert.equal(routingKey(plan([1, 1]), { ...seq, sequence: { id: '7', start: false, end: false } }), 's:7', 'string and number ids differ');
  assert.equal(routingKey(plan([1, 1]), { ...seq, sequence: { id: 0n, start: false, end: false } }), undefined, 'id 0 is no sequence');
});
