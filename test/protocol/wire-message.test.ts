/**
 * Error text is bounded: a script throwing a 20 MB message answers a few KiB over HTTP, gRPC
 * unary, the gRPC stream (error_message) and SSE (the error event), and every log line stays
 * within the bound; the cut keeps whole characters and says how much was left out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ServiceError } from '@grpc/grpc-js';
import { MAX_MESSAGE_BYTES, boundMessage } from '../../src/errors.js';
import { setLogSink, updateLogSettings } from '../../src/logger.js';
import { wireMessageOf } from '../../src/protocol/index.js';
import { startWireServers, type WireServers } from '../helpers/wire-servers.js';

const MB = 1024 * 1024;
const NOTE = /\.\.\. \((\d+) more bytes\)$/;

test('short text passes unchanged; long text is cut within the bound at a character boundary', () => {
  assert.equal(boundMessage('model \'m\': short'), 'model \'m\': short');
  const exact = 'a'.repeat(MAX_MESSAGE_BYTES);
  assert.equal(boundMessage(exact), exact, 'exactly the bound is kept whole');
  for (const unit of ['a', '€', '😀']) {
    const text = unit.repeat(Math.ceil((3 * MAX_MESSAGE_BYTES) / unit.length));
    const cut = boundMessage(text);
    const bytes = Buffer.byteLength(cut);
    assert.ok(bytes <= MAX_MESSAGE_BYTES && bytes > MAX_MESSAGE_BYTES - 64, `${unit}: ${bytes} bytes`);
    const m = NOTE.exec(cut);
    assert.ok(m, cut.slice(-80));
    const head = cut.slice(0, m.index);
    assert.equal(head, unit.repeat(head.length / unit.length), `${unit}: only whole characters are kept`);
    assert.equal(Buffer.byteLength(head) + Number(m[1]), Buffer.byteLength(text), 'N is what was left out, in bytes');
  }
  assert.match(wireMessageOf(new Error('x'.repeat(MB))), NOTE, 'anything thrown is cut on its way to the wire');
});

/** Throws a message of parameter `mb` MiB (default 20); decoupled, it first sends one response. */
const THROWER = `import { InferenceResponse, Tensor, logger, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] | undefined {
    const r = requests[0]!;
    const size = Number(r.parameters.mb ?? 20) * ${MB};
    logger.info('L'.repeat(size));
    if (DECOUPLED) r.responseSender().send(new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', [1], [1])] }));
    throw new Error('E'.repeat(size));
  }
}
`;

const thrower = (name: string, decoupled: boolean) => ({
  [`${name}/config.pbtxt`]: [
    `name: "${name}"`, 'backend: "typescript"', 'max_batch_size: 0',
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]',
    'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]',
    ...(decoupled ? ['model_transaction_policy { decoupled: true }'] : []),
    'parameters [ { key: "type_check" value: { string_value: "off" } } ]', '',
  ].join('\n'),
  [`${name}/1/model.ts`]: THROWER.replace('DECOUPLED', String(decoupled)),
});

/**
 * The whole message a client got: within the bound, naming the model, the note counting what was
 * left out of the 20 MiB (the sandbox cuts a script's text before it is copied out, so the
 * script's position still follows the note).
 */
function assertBounded(text: string, model: string): void {
  assert.ok(Buffer.byteLength(text) <= MAX_MESSAGE_BYTES, `${Buffer.byteLength(text)} bytes`);
  assert.match(text, new RegExp(`^model '${model}': execute\\(\\) failed: EEEE`));
  const m = /E\.\.\. \((\d+) more bytes\)( \(at 1\/model\.ts:\d+:\d+\))?$/.exec(text);
  assert.ok(m, text.slice(-80));
  const kept = (text.slice(0, m.index + 1).match(/E+$/)?.[0] ?? '').length;
  assert.equal(kept + Number(m[1]), 20 * MB, 'the note counts exactly what was left out');
}

describe('a script throwing a 20 MB message', () => {
  let s: WireServers;
  const lines: string[] = [];
  before(async () => {
    // Every line is kept (the script's error is logged with its stack at verbose level 1), none printed.
    setLogSink((line) => lines.push(line));
    updateLogSettings({ log_verbose_level: 1 });
    s = await startWireServers({ ...thrower('thrower', false), ...thrower('thrower_stream', true) });
  });
  after(async () => {
    await s?.close();
    updateLogSettings({ log_verbose_level: 0 });
    setLogSink((line) => process.stderr.write(`${line}\n`));
  });

  const body = (model: string) => JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [1] }] });
  const grpcRequest = (model: string) => ({ model_name: model, inputs: [{ name: 'X', datatype: 'FP32', shape: [1], contents: { fp32_contents: [1] } }] });

  test('HTTP: the error body is within the bound', async () => {
    const r = await fetch(`${s.base}/v2/models/thrower/infer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('thrower') });
    const text = await r.text();
    assert.equal(r.status, 500);
    assert.ok(text.length < MAX_MESSAGE_BYTES + 64, `${text.length} bytes of body`);
    assertBounded((JSON.parse(text) as { error: string }).error, 'thrower');
  });

  test('HTTP SSE: the error event after the first response is within the bound', async () => {
    const r = await fetch(`${s.base}/v2/models/thrower_stream/infer`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: body('thrower_stream'),
    });
    assert.equal(r.status, 200);
    const events = (await r.text()).split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)) as { error?: string });
    assert.equal(events.length, 2, 'one response, then the error');
    assertBounded(events[1]!.error ?? '', 'thrower_stream');
  });

  test('gRPC unary: status details are within the bound', async () => {
    const e = await s.grpc.call('ModelInfer', grpcRequest('thrower')).then(() => undefined, (err: ServiceError) => err);
    assert.ok(e);
    assertBounded(e.details, 'thrower');
  });

  test('gRPC stream: error_message is within the bound, and the stream goes on', async () => {
    const call = s.grpc.inference.ModelStreamInfer();
    const got: { error_message: string }[] = [];
    call.on('data', (m: { error_message: string }) => {
      got.push(m);
      if (got.length === 3) call.end();
    });
    const ended = new Promise((resolve, reject) => { call.on('end', resolve); call.on('error', reject); });
    call.write(grpcRequest('thrower'));
    call.write(grpcRequest('thrower_stream'));
    await ended;
    const errors = got.map((m) => m.error_message).filter((t) => t !== '');
    assert.equal(errors.length, 2, JSON.stringify(got.map((m) => m.error_message.slice(0, 40))));
    assertBounded(errors.find((t) => t.startsWith("model 'thrower':"))!, 'thrower');
    assertBounded(errors.find((t) => t.startsWith("model 'thrower_stream':"))!, 'thrower_stream');
  });

  test("a request's own text in an error (a 4 MiB input name, model name) is cut on the way out", async () => {
    const name = 'N'.repeat(4 * MB);
    const r = await fetch(`${s.base}/v2/models/thrower/infer`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ name, datatype: 'FP32', shape: [1], data: [1] }] }),
    });
    const text = await r.text();
    assert.equal(r.status, 400, text.slice(0, 200));
    const http = (JSON.parse(text) as { error: string }).error;
    assert.ok(Buffer.byteLength(http) <= MAX_MESSAGE_BYTES, `${Buffer.byteLength(http)} bytes`);
    assert.match(http, NOTE);
    const e = await s.grpc.call('ModelInfer', { ...grpcRequest('thrower'), model_name: name }).then(() => undefined, (err: ServiceError) => err);
    assert.ok(e);
    assert.ok(Buffer.byteLength(e.details) <= MAX_MESSAGE_BYTES, `${Buffer.byteLength(e.details)} bytes`);
    assert.match(e.details, /^Request for unknown model: 'NNNN.*\.\.\. \(\d+ more bytes\)$/);
  });

  test('every log line is within the bound', () => {
    assert.ok(lines.some((l) => l.includes('EEEE')), 'the script error was logged');
    assert.ok(lines.some((l) => /LLLL\.\.\. \(\d+ more bytes\)$/.test(l)), "the script's 20 MiB log message was logged, cut");
    const longest = Math.max(...lines.map((l) => Buffer.byteLength(l)));
    assert.ok(longest <= MAX_MESSAGE_BYTES + 128, `longest log line: ${longest} bytes`);
  });
});
