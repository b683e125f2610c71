/**
 * The routing header: the client SDK sends a sequence's id as `tributary-sequence-id` (HTTP header,
 * gRPC metadata) on every request of the sequence, a `routingKey` on any request, nothing
 * otherwise; `routingHeader` renames it or turns it off. Seen through the real server's header
 * forwarding (a script answers with its request parameters), which also shows the header passes
 * forward patterns: it is forwarded like any header, and a catch-all pattern does not refuse it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGrpcClient, createHttpClient, createTensor, tensorStrings, type InferenceClient, type InferOptions } from '../../src/client/index.js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { compileHeaderPattern } from '../../src/protocol/index.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';

// The server loads two models and starts: info lines only.
quietLog([]);

const SCRIPT = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
/** Answers with its request parameters as JSON. */
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => new InferenceResponse({ outputs: [new Tensor('P', 'BYTES', [1, 1], [JSON.stringify(r.parameters)])] }));
  }
}
`;
const config = (name: string, sequence: boolean) => `name: "${name}"
backend: "typescript"
max_batch_size: 4
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "P" data_type: TYPE_STRING dims: [ 1 ] } ]
${sequence ? 'sequence_batching { direct { } }' : ''}
`;

let repo: TempRepo;
let server: LocalServer;
let http: HttpServerHandle;
let grpc: GrpcServerHandle;
let catchAll: HttpServerHandle;
before(async () => {
  repo = tempRepo({
    'params/config.pbtxt': config('params', false), 'params/1/model.ts': SCRIPT,
    'params_seq/config.pbtxt': config('params_seq', true), 'params_seq/1/model.ts': SCRIPT,
  });
  server = await createServer({ modelRepository: repo.dir });
  const pattern = (flag: string) => compileHeaderPattern(flag, '(tributary|x)-.*');
  http = await startHttpServer(server, { port: 0, host: '127.0.0.1', headerForwardPattern: pattern('http-header-forward-pattern') });
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1', headerForwardPattern: pattern('grpc-header-forward-pattern') });
  catchAll = await startHttpServer(server, { port: 0, host: '127.0.0.1', headerForwardPattern: compileHeaderPattern('http-header-forward-pattern', '.*') });
});
after(async () => { await http?.close(); await grpc?.close(); await catchAll?.close(); await server?.close(); repo?.remove(); });

const clients = (opts: { routingHeader?: string | false } = {}): [string, InferenceClient][] => [
  ['HTTP', createHttpClient({ url: `http://127.0.0.1:${http.port}`, ...opts })],
  ['gRPC', createGrpcClient({ address: `127.0.0.1:${grpc.port}`, ...opts })],
];
const X = [createTensor('X', 'FP32', [1, 1], [1])];

/** The forwarded headers the script saw (the parameters named like the pattern). */
async function forwarded(client: InferenceClient, model: string, opts: InferOptions, how: 'infer' | 'stream' = 'infer'): Promise<Record<string, unknown>> {
  let r;
  if (how === 'infer') r = await client.infer(model, X, opts);
  else for await (const x of client.stream(model, X, opts)) r = x;
  const params = JSON.parse(tensorStrings(r!.output('P'))[0]!) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(params).filter(([k]) => /^(tributary|x)-/.test(k)));
}

test('every request of a sequence carries its id, over infer and stream, on both transports', async () => {
  for (const [transport, client] of clients()) {
    try {
      for (const [i, id] of [7, 2n ** 63n, 'user/7 é'].entries()) {
        const expected = { 'tributary-sequence-id': encodeURIComponent(String(id)) };
        assert.deepEqual(await forwarded(client, 'params_seq', { sequence: { id, start: true } }), expected, `${transport}: ${id}`);
        assert.deepEqual(await forwarded(client, 'params_seq', { sequence: { id } }, i % 2 ? 'stream' : 'infer'), expected, `${transport}: ${id}`);
        assert.deepEqual(await forwarded(client, 'params_seq', { sequence: { id, end: true } }), expected, `${transport}: ${id}`);
      }
    } finally {
      await client.close();
    }
  }
});

test('a request outside a sequence carries no routing header unless it asks with routingKey', async () => {
  for (const [transport, client] of clients()) {
    try {
      assert.deepEqual(await forwarded(client, 'params', {}), {}, transport);
      assert.deepEqual(await forwarded(client, 'params', { routingKey: 'tenant-a' }, 'stream'), { 'tributary-sequence-id': 'tenant-a' }, transport);
      // routingKey overrides the sequence id (one key for several sequences of one user, say).
      assert.deepEqual(await forwarded(client, 'params_seq', { sequence: { id: 9, start: true, end: true }, routingKey: 'u1' }),
        { 'tributary-sequence-id': 'u1' }, transport);
    } finally {
      await client.close();
    }
  }
});

test('routingHeader renames the header or turns it off', async () => {
  for (const [transport, client] of clients({ routingHeader: 'X-Session' })) {
    try {
      assert.deepEqual(await forwarded(client, 'params_seq', { sequence: { id: 3, start: true, end: true } }), { 'x-session': '3' }, transport);
    } finally {
      await client.close();
    }
  }
  for (const [transport, client] of clients({ routingHeader: false })) {
    try {
      assert.deepEqual(await forwarded(client, 'params_seq', { sequence: { id: 4, start: true, end: true } }), {}, transport);
    } finally {
      await client.close();
    }
  }
});

test('a catch-all forward pattern forwards the header rather than refusing it', async () => {
  const client = createHttpClient({ url: `http://127.0.0.1:${catchAll.port}` });
  try {
    const r = await client.infer('params_seq', X, { sequence: { id: 11, start: true, end: true } });
    assert.equal((JSON.parse(tensorStrings(r.output('P'))[0]!) as Record<string, unknown>)['tributary-sequence-id'], '11');
  } finally {
    await client.close();
  }
});
