import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rateLimitFromFlags } from '../../src/cli/rate-limit-flags.js';
import { Errors } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';

function logger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => {}, error: () => {}, verbose: () => {}, warn: (m) => { warnings.push(m); } };
}

test('--rate-limit: off by default (as tritonserver), execution_count in any case', () => {
  assert.deepEqual(rateLimitFromFlags({}, logger()), { rateLimit: 'off', rateLimitResources: [] });
  assert.equal(rateLimitFromFlags({ 'rate-limit': 'EXECUTION_COUNT' }, logger()).rateLimit, 'execution_count');
  assert.throws(() => rateLimitFromFlags({ 'rate-limit': 'on' }, logger()), (e) => Errors.cliFlagChoice.is(e) && /--rate-limit must be off or execution_count, got 'on'/.test((e as Error).message));
});

test('--rate-limit-resource: name:count for every device, name:count:0 for the CPU device', () => {
  const r = rateLimitFromFlags({ 'rate-limit': 'execution_count', 'rate-limit-resource': ['R1:10', 'R2:5:0'] }, logger());
  assert.deepEqual(r.rateLimitResources, [{ name: 'R1', count: 10 }, { name: 'R2', count: 5, device: 0 }]);
});

test('--rate-limit-resource: malformed values and other devices are refused, naming the flag', () => {
  for (const bad of ['R1', 'R1:x', ':3', 'R1:2:0:1', 'R1:-1', 'R1:2:gpu']) {
    assert.throws(() => rateLimitFromFlags({ 'rate-limit-resource': bad }, logger()), (e) => Errors.cliFlagExpects.is(e) && (e as Error).message.includes('--rate-limit-resource'), bad);
  }
  assert.throws(() => rateLimitFromFlags({ 'rate-limit-resource': 'R2:8:1' }, logger()), (e) => Errors.cliFlagRefused.is(e) && /device 1 does not exist.*give R2:8:0 or R2:8$/.test((e as Error).message));
});

test('--rate-limit-resource without --rate-limit=execution_count warns that it does nothing', () => {
  const log = logger();
  rateLimitFromFlags({ 'rate-limit-resource': 'R1:1' }, log);
  assert.match(log.warnings.join('\n'), /no effect with --rate-limit=off/);
});
