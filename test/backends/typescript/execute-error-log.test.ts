/**
 * A script whose execute() throws: each request gets the error, and the server logs it too, at
 * warning level, at most once per SCRIPT_ERROR_LOG_INTERVAL_MS per model (the rest are counted
 * into the next line, see test/logger.test.ts). An error response the script returns on purpose
 * is the client's answer only: it is not logged.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SCRIPT_ERROR_LOG_INTERVAL_MS } from '../../../backends/typescript/typescript-backend.js';
import { setLogSink } from '../../../src/logger.js';
import type { Server } from '../../../src/server/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import { expectError } from '../../helpers/expect-error.js';
import { blsServer, inferAll } from './bls-repo.js';

const lines: string[] = [];
let server: Server;
before(async () => {
  setLogSink((line) => { lines.push(line); });
  server = await blsServer(['misbehave']);
});
after(async () => {
  await server.close();
  setLogSink((line) => process.stderr.write(`${line}\n`));
});

test(`execute() errors are logged as warnings, one line per ${SCRIPT_ERROR_LOG_INTERVAL_MS / 1000} s per model; returned errors are not`, async () => {
  const x = createTensor('X', 'FP32', [1], [0]);
  const started = Date.now();
  for (let i = 0; i < 5; i++) {
    const e = await expectError(inferAll(server, { model: 'misbehave', inputs: [x], parameters: { mode: 'throw' } }));
    assert.match(e.message, /the script broke on purpose/, 'every request still gets the error');
  }
  for (let i = 0; i < 3; i++) await expectError(inferAll(server, { model: 'misbehave', inputs: [x], parameters: { mode: 'reject' } }));
  // The five throws fit in one interval on any machine this runs on; otherwise the count below is off.
  assert.ok(Date.now() - started < SCRIPT_ERROR_LOG_INTERVAL_MS, 'the requests took less than one interval');
  const warned = lines.filter((l) => l.startsWith('W') && l.includes("'misbehave'"));
  assert.equal(warned.length, 1, warned.join('\n'));
  assert.match(warned[0]!, /model 'misbehave': execute\(\) failed: the script broke on purpose \(at 1\/model\.ts:11:15\)$/);
  assert.deepEqual(lines.filter((l) => l.includes('must not be empty')), [], 'a returned error is not logged');
});
