/**
 * The head of an HTTP/1.1 request (request line and header fields), read for the socket lane
 * (infer-lane.ts), strictly: whatever this parser does not take whole is not refused here but
 * left to node's HTTP server, whose parser answers it with its own rules. So the lane can only be
 * narrower than node, never looser: a request the two might frame differently (request
 * smuggling's raw material: Transfer-Encoding, two Content-Lengths, a bare LF, a folded line, a
 * space before the colon) is never the lane's.
 *
 * Taken: `POST <target> HTTP/1.1`, then fields `name: value` (name a token, value visible
 * characters, spaces, tabs and obs-text), each name once, one Content-Length of digits, no
 * Transfer-Encoding, Expect or Upgrade, Connection absent, `keep-alive` or `close`.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface RequestHead {
  /** The request target as sent (a path; the lane checks its shape). */
  target: string;
  /** Field names lower-cased, values without surrounding spaces, as node hands them to a listener. */
  headers: IncomingHttpHeaders;
  contentLength: number;
  /** The client sent `Connection: close`: answer, then close. */
  close: boolean;
}

const METHOD = 'POST ';
const VERSION = ' HTTP/1.1';
const SPACE = 0x20;
const TAB = 0x09;
const DEL = 0x7f;

/** tchar (RFC 9110 5.6.2): the characters of a field name. */
const TOKEN = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~") TOKEN[c.charCodeAt(0)] = 1;
for (let c = 0x30; c <= 0x39; c++) TOKEN[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) TOKEN[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) TOKEN[c] = 1;

const DIGITS = /^\d{1,15}$/;

function isToken(text: string, from: number, to: number): boolean {
  if (from === to) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || TOKEN[c] === 0) return false;
  }
  return true;
}

/** Visible characters, spaces, tabs and obs-text: no CR, LF, NUL or other control. */
function isFieldValue(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if ((c < SPACE && c !== TAB) || c === DEL) return false;
  }
  return true;
}

/** A request target of visible ASCII characters (no space, control or obs-text). */
function isTarget(text: string, from: number, to: number): boolean {
  if (from === to) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c <= SPACE || c >= DEL) return false;
  }
  return true;
}

/**
 * The head in `bytes[0, end)` (`end` is where its CRLF CRLF starts), or undefined when it is not one
 * the lane takes. Scanned by hand: the per-line regular expressions this replaced cost about 3 µs
 * a request, most of what the lane spends.
 */
export function parseRequestHead(bytes: Buffer, end: number): RequestHead | undefined {
  const text = bytes.toString('latin1', 0, end);
  let eol = text.indexOf('\r\n');
  if (eol === -1) eol = text.length;
  if (!text.startsWith(METHOD) || eol < METHOD.length + VERSION.length || !text.startsWith(VERSION, eol - VERSION.length)) return undefined;
  const targetEnd = eol - VERSION.length;
  if (!isTarget(text, METHOD.length, targetEnd)) return undefined;
  const headers: IncomingHttpHeaders = {};
  let contentLength = -1;
  let close = false;
  for (let at = eol + 2; at < text.length;) {
    let lineEnd = text.indexOf('\r\n', at);
    if (lineEnd === -1) lineEnd = text.length;
    const colon = text.indexOf(':', at);
    if (colon === -1 || colon >= lineEnd || !isToken(text, at, colon)) return undefined;
    let from = colon + 1;
    let to = lineEnd;
    while (from < to && (text.charCodeAt(from) === SPACE || text.charCodeAt(from) === TAB)) from++;
    while (to > from && (text.charCodeAt(to - 1) === SPACE || text.charCodeAt(to - 1) === TAB)) to--;
    if (!isFieldValue(text, from, to)) return undefined;
    const name = text.slice(at, colon).toLowerCase();
    const value = text.slice(from, to);
    at = lineEnd + 2;
    if (headers[name] !== undefined) return undefined;
    switch (name) {
      case 'content-length':
        if (!DIGITS.test(value)) return undefined;
        contentLength = Number(value);
        break;
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return undefined;
      case 'connection': {
        const v = value.toLowerCase();
        if (v === 'close') close = true;
        else if (v !== 'keep-alive') return undefined;
        break;
      }
    }
    headers[name] = value;
  }
  if (contentLength < 0) return undefined;
  return { target: text.slice(METHOD.length, targetEnd), headers, contentLength, close };
}
