/** The transport against a plain node:http server that records what arrives. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createHttpTransport } from '../../../src/client/http/http-transport.js';
import { ClientError } from '../../../src/client/index.js';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer; socket: Socket }
const seen: Seen[] = [];
let server: Server;
let url: string;

before(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(parts), socket: req.socket });
      if (req.url!.endsWith('/fail')) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"model \'m\' is not ready"}');
      } else if (req.headers['accept-encoding'] === 'gzip') {
        res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('{"ok":true}'));
      } else {
        res.writeHead(200).end('{"ok":true}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix/`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test('keep-alive: consecutive requests share one connection; chunks arrive as one body', async () => {
  const http = createHttpTransport({ url, headers: { 'x-trace': '1' } });
  seen.length = 0;
  await http.request('POST', '/a', { chunks: ['{"x":', Uint8Array.of(0x31), '}'], byteLength: 7, headerLength: 5 });
  await http.request('GET', '/b');
  http.close();
  assert.equal(seen.length, 2);
  assert.equal(seen[0]!.socket, seen[1]!.socket);
  assert.equal(seen[0]!.url, '/prefix/a');
  assert.equal(seen[0]!.body.toString(), '{"x":1}');
  assert.equal(seen[0]!.headers['inference-header-content-length'], '5');
  assert.equal(seen[0]!.headers['content-type'], 'application/octet-stream');
  assert.equal(seen[0]!.headers['x-trace'], '1');
  assert.equal(seen[1]!.headers['content-length'], undefined);
});

test('gzip: the request body is compressed and a compressed answer is inflated', async () => {
  const http = createHttpTransport({ url, compression: 'gzip' });
  seen.length = 0;
  const res = await http.request('POST', '/z', { chunks: ['{"hello":"world"}'], byteLength: 17 });
  http.close();
  assert.equal(seen[0]!.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(seen[0]!.body).toString(), '{"hello":"world"}');
  assert.equal(res.body.toString(), '{"ok":true}');
});

test('a failed status becomes ClientError with the server message', async () => {
  const http = createHttpTransport({ url });
  await assert.rejects(http.request('GET', '/fail'), (e: unknown) =>
    e instanceof ClientError && e.status === 503 && e.kind === 'UNAVAILABLE' && e.message === "model 'm' is not ready");
  http.close();
});
