/** /v2/health/ready's answer is logged when it changes, with what holds it back; probes in between log nothing. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Logger } from '../../src/logger.js';
import { createReadinessLog } from '../../src/server/readiness-log.js';

test('logged once per change of answer or of reasons, never per probe', () => {
  const lines: string[] = [];
  const log: Logger = { info: (m) => lines.push(`I ${m}`), warn: (m) => lines.push(`W ${m}`), error: (m) => lines.push(`E ${m}`), verbose: () => {} };
  const note = createReadinessLog(log);
  let asked = 0;
  const reasons = (r: string[]) => () => { asked++; return r; };
  note(true, reasons([]));
  assert.deepEqual(lines, [], 'ready from the start: nothing to say');
  note(false, reasons(["'a' LOADING"]));
  note(false, reasons(["'a' LOADING"]));
  note(false, reasons(["'a' LOADING", "'b' UNAVAILABLE (bad config)"]));
  note(false, reasons(["'a' LOADING", "'b' UNAVAILABLE (bad config)"]));
  note(true, reasons([]));
  note(true, reasons([]));
  assert.deepEqual(lines, [
    "W not ready: 'a' LOADING",
    "W not ready: 'a' LOADING, 'b' UNAVAILABLE (bad config)",
    'I ready: every model the server loads is ready',
  ]);
  assert.equal(asked, 4, 'reasons are asked only while not ready');
});
