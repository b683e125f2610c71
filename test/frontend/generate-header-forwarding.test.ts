/**
 * --http-header-forward-pattern on the generate extension: matching headers reach a real
 * TypeScript script as request parameters over /generate and /generate_stream, as over /infer;
 * the body's own field keeps its value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from '../../src/server/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { compileHeaderPattern } from '../../src/protocol/index.js';
import { tempRepo } from '../helpers/temp-repo.js';

const SCRIPT = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
/** Answers with its request parameters as JSON. */
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => new InferenceResponse({ outputs: [new Tensor('P', 'BYTES', [1], [JSON.stringify(r.parameters)])] }));
  }
}
`;
const CONFIG = `name: "params"
backend: "typescript"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "P" data_type: TYPE_STRING dims: [ 1 ] } ]
`;

test('matching headers become request parameters over /generate and /generate_stream', async (t) => {
  const repo = tempRepo({ 'params/config.pbtxt': CONFIG, 'params/1/model.ts': SCRIPT });
  t.after(() => repo.remove());
  const server = await createServer({ modelRepository: repo.dir });
  t.after(() => server.close());
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', headerForwardPattern: compileHeaderPattern('http-header-forward-pattern', 'my_.*') });
  t.after(() => http.close());
  const post = (path: string) => fetch(`http://127.0.0.1:${http.port}/v2/models/params/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', My_Header: 'v1', my_body: 'header', other: 'no' },
    body: JSON.stringify({ X: 1, my_body: 'body' }),
  });

  const unary = await post('generate');
  assert.equal(unary.status, 200);
  assert.deepEqual(JSON.parse(((await unary.json()) as { P: string }).P), { my_body: 'body', my_header: 'v1' });

  const stream = await post('generate_stream');
  assert.equal(stream.status, 200);
  const events = (await stream.text()).split('\n').filter((l) => l.startsWith('data: '));
  assert.equal(events.length, 1);
  const event = JSON.parse(events[0]!.slice('data: '.length)) as { P: string };
  assert.deepEqual(JSON.parse(event.P), { my_body: 'body', my_header: 'v1' });
});
