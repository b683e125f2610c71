import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import { startGrpcServer } from '../../../src/frontend/grpc/index.js';
import { startHttpServer } from '../../../src/frontend/http/index.js';
import { TributaryError } from '../../../src/errors.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { createTensor } from '../../../src/tensor/index.js';
import { createTestClient, type TestClient } from '../../frontend/grpc/grpc-client.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { scriptRepo } from './script-repo.js';

/** Decoupled and forgetful: one response, never the final flag. */
const NO_FINAL = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): void {
    for (const r of requests) r.responseSender().send(new InferenceResponse({ outputs: [new Tensor('I', 'INT32', [1], [7])] }));
  }
}
`;
const noFinal = (params: Record<string, string>) => ({
  config: [
    'max_batch_size: 0',
    'model_transaction_policy { decoupled: true }',
    'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]',
    'output [ { name: "I" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  ],
  code: NO_FINAL,
  params,
});

describe('a decoupled script that never sends its final flag is failed and released', () => {
  let repo: TempRepo;
  let server: Server;
  let http: { port: number; close(): Promise<void> };
  let grpc: { port: number; close(): Promise<void> };
  let client: TestClient;
  before(async () => {
    repo = scriptRepo({ nofinal: noFinal({ response_timeout_ms: '300' }), nofinal_default: noFinal({}) });
    server = await createServer({ modelRepository: repo.dir });
    http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
    grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
    client = createTestClient(grpc.port);
  });
  after(async () => {
    client.close();
    await grpc.close();
    await http.close();
    await server.close();
    repo.remove();
  });
  const TIMED_OUT = /model 'nofinal': the decoupled script sent no final response within 300 ms \(parameter response_timeout_ms/;
  const post = (path: string, body: unknown) => fetch(`http://127.0.0.1:${http.port}${path}`, { method: 'POST', body: JSON.stringify(body) });

  test('in process: the response arrives, then the error; the request\'s own deadline comes first', async () => {
    const got: number[] = [];
    const err = await new Promise<unknown>((resolve) => {
      server.infer({ model: 'nofinal', inputs: [createTensor('N', 'INT32', [1], [1])] })
        .subscribe({ next: (r) => got.push((r.outputs[0]!.data as Int32Array)[0]!), error: resolve, complete: () => resolve(undefined) });
    });
    assert.deepEqual(got, [7]);
    assert.ok(err instanceof TributaryError);
    assert.equal(err.code, 'TRB_SCRIPT_RESPONSE_TIMEOUT');
    assert.match(err.message, TIMED_OUT);
    // No per-model setting (default 60 s): the request's deadline releases it.
    const t0 = performance.now();
    await assert.rejects(
      lastValueFrom(server.infer({ model: 'nofinal_default', inputs: [createTensor('N', 'INT32', [1], [1])], deadline: performance.now() + 200 }).pipe(toArray())),
      /no final response within \d+ ms \(the request's timeout\)/,
    );
    assert.ok(performance.now() - t0 < 30_000, 'released by the deadline, not the 60 s default');
  });

  test('HTTP infer answers with the error', async () => {
    const res = await post('/v2/models/nofinal/infer', { inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [1] }] });
    assert.notEqual(res.status, 200);
    assert.match(((await res.json()) as { error: string }).error, TIMED_OUT);
  });

  test('SSE generate_stream sends the response, then an error event, and ends', async () => {
    const res = await post('/v2/models/nofinal/generate_stream', { N: 1 });
    const text = await res.text();
    assert.match(text, /"I":7/);
    assert.match(text, TIMED_OUT);
  });

  test('a gRPC stream gets the response, then error_message, and the stream ends', async () => {
    const call = client.inference.ModelStreamInfer();
    const got: { error_message: string }[] = [];
    call.on('data', (m: { error_message: string }) => got.push(m));
    const ended = new Promise((resolve) => call.on('end', resolve));
    call.write({ model_name: 'nofinal', id: 'a', inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.from(Int32Array.of(1).buffer)] });
    call.end(); // half-close: the stream ends once the request is released
    await ended;
    assert.equal(got.length, 2);
    assert.equal(got[0]!.error_message, '');
    assert.match(got[1]!.error_message, TIMED_OUT);
  });
});
