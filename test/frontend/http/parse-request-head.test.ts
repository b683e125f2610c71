/**
 * The socket lane's head parser takes a strict subset of HTTP/1.1 and leaves everything else to
 * node's parser: what it takes is read exactly, and each way a request could be framed two ways is
 * not taken.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestHead } from '../../../src/frontend/http/parse-request-head.js';

const head = (text: string) => {
  const bytes = Buffer.from(`${text}\r\n\r\n`, 'latin1');
  return parseRequestHead(bytes, bytes.indexOf('\r\n\r\n'));
};
const lines = (...l: string[]) => l.join('\r\n');

test('an ordinary request head: target, names lower-cased, values trimmed, the body length', () => {
  const h = head(lines('POST /v2/models/m/infer HTTP/1.1', 'Host: x', 'Content-Type:  application/json \t', 'content-length: 42', 'X-Odd: a\tb ÿ'));
  assert.deepEqual(h, {
    target: '/v2/models/m/infer',
    headers: { host: 'x', 'content-type': 'application/json', 'content-length': '42', 'x-odd': 'a\tb ÿ' },
    contentLength: 42,
    close: false,
  });
  assert.equal(head(lines('POST /a HTTP/1.1', 'Content-Length: 0', 'Connection: close'))?.close, true);
  assert.equal(head(lines('POST /a HTTP/1.1', 'Content-Length: 0', 'Connection: Keep-Alive'))?.close, false);
  assert.deepEqual(head(lines('POST /a HTTP/1.1', 'Content-Length: 0', 'X-Empty:'))?.headers, { 'content-length': '0', 'x-empty': '' });
});

test('what is not taken: other methods and versions, framing the lane cannot be sure of, malformed lines', () => {
  const cases: [string, string][] = [
    ['GET', lines('GET /a HTTP/1.1', 'Content-Length: 0')],
    ['HTTP/1.0', lines('POST /a HTTP/1.0', 'Content-Length: 0')],
    ['lower-case method', lines('post /a HTTP/1.1', 'Content-Length: 0')],
    ['two spaces', lines('POST  /a HTTP/1.1', 'Content-Length: 0')],
    ['a space in the target', lines('POST /a b HTTP/1.1', 'Content-Length: 0')],
    ['obs-text in the target', lines('POST /ä HTTP/1.1', 'Content-Length: 0')],
    ['no target', lines('POST  HTTP/1.1', 'Content-Length: 0')],
    ['no Content-Length', lines('POST /a HTTP/1.1', 'Host: x')],
    ['no headers', 'POST /a HTTP/1.1'],
    ['two Content-Lengths', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'content-length: 1')],
    ['a list as Content-Length', lines('POST /a HTTP/1.1', 'Content-Length: 1, 1')],
    ['a signed Content-Length', lines('POST /a HTTP/1.1', 'Content-Length: +1')],
    ['a Content-Length past 15 digits', lines('POST /a HTTP/1.1', `Content-Length: ${'9'.repeat(16)}`)],
    ['Transfer-Encoding', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'Transfer-Encoding: chunked')],
    ['Expect', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'Expect: 100-continue')],
    ['Upgrade', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'Upgrade: h2c')],
    ['Connection: upgrade', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'Connection: upgrade')],
    ['a repeated name', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'X-A: 1', 'x-a: 2')],
    ['a space before the colon', lines('POST /a HTTP/1.1', 'Content-Length : 1')],
    ['a folded line', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'X-A: 1', ' more')],
    ['no colon', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'X-A')],
    ['an empty name', lines('POST /a HTTP/1.1', 'Content-Length: 1', ': x')],
    ['a bare LF inside the head', lines('POST /a HTTP/1.1', 'Content-Length: 1\nX-A: 2')],
    ['a bare CR in a value', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'X-A: a\rb')],
    ['a NUL in a value', lines('POST /a HTTP/1.1', 'Content-Length: 1', 'X-A: a\0b')],
    ['a name the object prototype has', lines('POST /a HTTP/1.1', 'Content-Length: 1', '__proto__: x')],
  ];
  for (const [why, text] of cases) assert.equal(head(text), undefined, why);
});
