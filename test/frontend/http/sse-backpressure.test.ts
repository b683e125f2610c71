/**
 * Backpressure on server-sent events (/infer with Accept: text/event-stream, /generate_stream),
 * over a real server on loopback with real TypeScript models (test/helpers/stream-senders.ts). A
 * client that stops reading fills the kernel's socket buffers first (several MB on loopback), so
 * the never-read cases send 8 KiB events.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startHttpServer, type HttpServerHandle } from '../../../src/frontend/http/index.js';
import { StreamBudget } from '../../../src/frontend/stream/index.js';
import { createServer, type Server } from '../../../src/server/index.js';
import { eventually, senderBody, senderProgress, senderRepo, settledProgress } from '../../helpers/stream-senders.js';
import type { TempRepo } from '../../helpers/temp-repo.js';
import { until } from '../grpc/harness.js';

const KIB = 1024;
const BOUND = 256 * KIB;

interface Sse {
  /** Events received so far: the JSON of each `data:` line, and `end` for the closing event. */
  events: unknown[];
  status: Promise<number>;
  ended: Promise<void>;
  pause(): void;
  resume(): void;
  destroy(): void;
}

function sse(port: number, path: string, body: string): Sse {
  const events: unknown[] = [];
  let res: http.IncomingMessage | undefined;
  let ended!: () => void;
  const endedP = new Promise<void>((r) => { ended = r; });
  let setStatus!: (n: number) => void;
  const status = new Promise<number>((r) => { setStatus = r; });
  let paused = false;
  const req = http.request({
    host: '127.0.0.1', port, path, method: 'POST', agent: false,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
  }, (r) => {
    res = r;
    if (paused) r.pause();
    setStatus(r.statusCode ?? 0);
    let tail = '';
    r.setEncoding('utf8');
    r.on('data', (chunk: string) => {
      const text = tail + chunk;
      let i = 0;
      for (let j = text.indexOf('\n\n', i); j >= 0; j = text.indexOf('\n\n', i)) {
        const ev = text.slice(i, j);
        if (ev.startsWith('event: end')) events.push('end');
        else if (ev.startsWith('data: ')) events.push(JSON.parse(ev.slice(6)));
        i = j + 2;
      }
      tail = text.slice(i);
    });
    r.on('end', ended);
    r.on('close', ended);
  });
  req.on('error', () => ended());
  req.end(body);
  return {
    events, status, ended: endedP,
    pause() { paused = true; res?.pause(); },
    resume() { paused = false; res?.resume(); },
    destroy() { req.destroy(); },
  };
}

const first = (e: any) => e.outputs[0].data[0];

describe('server-sent events backpressure', () => {
  let repo: TempRepo;
  let server: Server;
  let front: HttpServerHandle;
  const budget = new StreamBudget({ streamBytes: BOUND, totalBytes: 64 * 1024 * KIB });
  const failures = (model: string) => server.modelStatistics(model).model_stats[0]!.inference_stats.fail.count;

  before(async () => {
    repo = senderRepo();
    server = await createServer({ modelRepository: repo.dir });
    front = await startHttpServer(server, { port: 0, host: '127.0.0.1', streamBudget: budget });
  });
  after(async () => {
    await front.close();
    await server.close();
    repo.remove();
  });

  /** Never read: once the kernel's buffers are full the script pauses; the stream stays under its bound. */
  const neverRead = async (path: string, body: string, model: string) => {
    const failed = failures(model);
    const s = sse(front.port, path, body);
    s.pause();
    await until(() => budget.figures.sse.paused === 1, 20_000);
    const p0 = await settledProgress(server);
    let peak = 0;
    const end = Date.now() + 500;
    while (Date.now() < end) {
      peak = Math.max(peak, budget.bytes);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal((await senderProgress(server)).sent, p0.sent, 'the script waits');
    assert.ok(peak > BOUND / 8 && peak <= BOUND, `held ${peak} bytes`);
    assert.equal(budget.figures.sse.overflows, 0, 'a script that waits never overflows');
    s.destroy();
    await until(() => budget.bytes === 0 && budget.figures.sse.paused === 0, 5000);
    await until(() => failures(model) === failed + 1, 5000);
    await eventually(async () => (await senderProgress(server)).stopped === p0.stopped + 1);
  };

  test('/infer: a client that never reads pauses the script under the bound; closing frees it all and stops the script', async () => {
    await neverRead('/v2/models/await_sender/infer', senderBody(20_000, 2048), 'await_sender');
    const s = sse(front.port, '/v2/models/await_sender/infer', senderBody(3, 4));
    await s.ended;
    assert.deepEqual(s.events.map((e) => (e === 'end' ? e : first(e))), [0, 1, 2, 'end']);
  });

  test('/generate_stream: the same', async () => {
    await neverRead('/v2/models/await_sender/generate_stream', JSON.stringify({ N: 20_000, SIZE: 2048 }), 'await_sender');
  });

  test('a reading client receives every event, in order, then the end event', async () => {
    const n = 3000;
    const s = sse(front.port, '/v2/models/await_sender/infer', senderBody(n, 256));
    assert.equal(await s.status, 200);
    await s.ended;
    assert.equal(s.events.length, n + 1);
    assert.deepEqual(s.events.slice(0, n).map(first), Array.from({ length: n }, (_, i) => i));
    assert.equal(s.events[n], 'end');
    await until(() => budget.bytes === 0);
  });

  test('a script that cannot wait: its stream ends with a TRB_STREAM_BUFFER_FULL error event at the bound', async () => {
    const overflows = budget.figures.sse.overflows;
    const s = sse(front.port, '/v2/models/loop_sender/infer', senderBody(20_000, 2048));
    s.pause();
    await until(() => budget.figures.sse.overflows === overflows + 1, 20_000);
    s.resume();
    await s.ended;
    const last = s.events.at(-1) as { error?: string };
    assert.match(last.error ?? '', /model 'loop_sender': the stream's client is not taking its responses \(\d+ bytes waiting, bound 262144, --stream-buffer-bytes\); the request was cancelled/);
    const data = s.events.slice(0, -1);
    assert.ok(data.length > 0 && data.length < 20_000);
    assert.deepEqual(data.map(first), Array.from({ length: data.length }, (_, i) => i));
    await until(() => budget.bytes === 0);
  });
});
