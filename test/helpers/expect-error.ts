import assert from 'node:assert/strict';
import { TributaryError } from '../../src/errors.js';

/** The TributaryError `p` rejects with; fails the test if it resolves or throws anything else. */
export async function expectError(p: Promise<unknown>): Promise<TributaryError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof TributaryError, `expected a TributaryError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}
