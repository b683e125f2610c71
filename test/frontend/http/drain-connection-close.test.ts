/**
 * During a drain every HTTP response says `Connection: close`, so a kept-alive client leaves: a
 * unary response and an SSE stream to requests admitted before the drain, the refusal of a new
 * one, and /v2/health/ready (400 with an empty body, Triton's answer while exiting). Before the
 * drain the same connection is kept alive.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from '../../../src/server/index.js';
import { startHttpServer } from '../../../src/frontend/http/index.js';
import { tempRepo } from '../../helpers/temp-repo.js';

const slow = `name: "slow"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 2 kind: KIND_CPU } ]
parameters [ { key: "execute_delay_ms" value: { string_value: "400" } } ]
`;
const BODY = JSON.stringify({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [1], data: [1] }] });

interface Answer { status: number; headers: IncomingHttpHeaders; body: string }

function send(port: number, agent: Agent, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent, headers: body ? { 'content-type': 'application/json', ...headers } : headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a drain makes HTTP responses close their connection; readiness answers 400 as Triton does', async (t) => {
  const repo = tempRepo({ 'slow/config.pbtxt': slow, 'slow/1/.keep': '' });
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir });
  t.after(() => server.close());
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  t.after(() => http.close());
  const agent = new Agent({ keepAlive: true });
  t.after(() => agent.destroy());

  const before = await send(http.port, agent, 'GET', '/v2/health/ready');
  assert.equal(before.status, 200);
  assert.equal(before.headers.connection, 'keep-alive');

  const unary = send(http.port, agent, 'POST', '/v2/models/slow/infer', {}, BODY);
  const sse = send(http.port, agent, 'POST', '/v2/models/slow/infer', { accept: 'text/event-stream' }, BODY);
  // Both admitted (the model runs 400 ms) before the drain begins.
  await new Promise((r) => setTimeout(r, 100));
  const drained = server.drain(5000);

  const ready = await send(http.port, agent, 'GET', '/v2/health/ready');
  assert.equal(ready.status, 400);
  assert.equal(ready.body, '');
  assert.equal(ready.headers.connection, 'close');
  const refused = await send(http.port, agent, 'POST', '/v2/models/slow/infer', {}, BODY);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.connection, 'close');

  const u = await unary;
  assert.equal(u.status, 200);
  assert.deepEqual((JSON.parse(u.body) as { outputs: { data: number[] }[] }).outputs[0]!.data, [1]);
  assert.equal(u.headers.connection, 'close');
  const s = await sse;
  assert.equal(s.status, 200);
  assert.equal(s.headers['content-type'], 'text/event-stream');
  assert.equal(s.headers.connection, 'close');
  assert.match(s.body, /^data: \{.*"OUT".*\}\n\nevent: end\n/);
  assert.deepEqual(await drained, { inFlight: 2, finished: 2, cancelled: 0 });
});
