import { after } from 'node:test';
import { setLogSink } from '../../src/logger.js';

/**
 * For test files that provoke failures on purpose: the server logs those (as it must), and in the
 * test output the expected E/W lines read as failures. From the call until the file's tests end,
 * info lines and the error/warning lines matching one of `expected` are dropped; every other
 * warning or error still reaches stderr, so an unexpected one stays visible.
 */
export function quietLog(expected: readonly RegExp[]): void {
  setLogSink((line) => {
    if (line.startsWith('I') || expected.some((p) => p.test(line))) return;
    process.stderr.write(`${line}\n`);
  });
  after(() => setLogSink((line) => process.stderr.write(`${line}\n`)));
}
