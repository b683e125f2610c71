/**
 * `serve --replicas 2` while replicas are killed with SIGKILL under load: every new connection is
 * either served by a live replica or closed (refused, reset) at once; none is held unanswered.
 * Clients over HTTP and gRPC open a new connection per request (the moment a connection passes
 * to a replica is what a kill can interrupt) and give each request a few seconds: one that got
 * neither an answer nor a connection error by then counts as hung.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import http2 from 'node:http2';
import { LOOPBACK, startServe, type Served } from '../helpers/tributary-process.js';
import { tempRepo } from '../helpers/temp-repo.js';

const ECHO = `name: "echo"
backend: "identity"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]
`;
const BODY = JSON.stringify({ inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 2], data: [1, 2] }] });
/** A request with neither an answer nor an error after this is hung (answers take milliseconds). */
const CLIENT_TIMEOUT_MS = 5000;
/** Clients over HTTP and over gRPC, each with one request in flight at a time. */
const HTTP_CLIENTS = 4;
const GRPC_CLIENTS = 2;

type Outcome = 'answered' | 'failed' | 'hung';

/** One inference on its own connection. */
function infer(port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (o: Outcome) => { if (!settled) { settled = true; clearTimeout(timer); req.destroy(); resolve(o); } };
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v2/models/echo/infer', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => settle('answered'));
      res.on('error', () => settle('failed'));
    });
    req.on('error', () => settle('failed'));
    const timer = setTimeout(() => settle('hung'), CLIENT_TIMEOUT_MS);
    req.end(BODY);
  });
}

/** gRPC ServerLive, as raw HTTP/2, on its own connection: answered once its grpc-status arrives. */
function live(port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const session = http2.connect(`http://127.0.0.1:${port}`);
    const settle = (o: Outcome) => { if (!settled) { settled = true; clearTimeout(timer); session.destroy(); resolve(o); } };
    session.on('error', () => settle('failed'));
    session.on('close', () => settle('failed'));
    const req = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ServerLive', 'content-type': 'application/grpc', te: 'trailers' });
    req.on('trailers', (h) => settle(h['grpc-status'] === undefined ? 'failed' : 'answered'));
    req.on('data', () => {});
    req.on('error', () => settle('failed'));
    req.on('close', () => settle('failed'));
    const timer = setTimeout(() => settle('hung'), CLIENT_TIMEOUT_MS);
    req.end(Buffer.alloc(5));
  });
}

async function waitForLog(s: Served, re: RegExp, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!re.test(s.log())) {
    if (Date.now() > until) throw new Error(`no ${re} in the log within ${ms} ms:\n${s.log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('serve --replicas 2: replicas killed under load leave no connection hung', { timeout: 180_000 }, async (t) => {
  const repo = tempRepo({ 'echo/config.pbtxt': ECHO, 'echo/1/.keep': '' });
  const s = await startServe([...LOOPBACK, '--model-repository', repo.dir, '--replicas', '2', '--allow-metrics', 'false'], 120_000);
  try {
    const pids = [...(/2 replicas sharing[^\n]*/.exec(s.log())?.[0] ?? '').matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
    assert.equal(pids.length, 2, s.log());
    const zero = (): Record<Outcome, number> => ({ answered: 0, failed: 0, hung: 0 });
    const counts = { http: zero(), grpc: zero() };
    let running = true;
    const client = async (tally: Record<Outcome, number>, once: () => Promise<Outcome>) => {
      while (running) {
        const o = await once();
        tally[o]++;
        // A refused connection is answered at once: pace the retries so they do not spin.
        if (o === 'failed') await sleep(20);
      }
    };
    const clients = [
      ...Array.from({ length: HTTP_CLIENTS }, () => client(counts.http, () => infer(s.http))),
      ...Array.from({ length: GRPC_CLIENTS }, () => client(counts.grpc, () => live(s.grpc))),
    ];
    await sleep(1000);
    process.kill(pids[0]!, 'SIGKILL');
    // The second kill falls on the replica that took the whole load meanwhile; then none is left
    // until the replacements serve, and new connections must be refused, not held.
    await sleep(1500);
    process.kill(pids[1]!, 'SIGKILL');
    await sleep(1500);
    running = false;
    await Promise.all(clients);
    t.diagnostic(`requests: ${JSON.stringify(counts)}`);
    assert.deepEqual([counts.http.hung, counts.grpc.hung], [0, 0], JSON.stringify(counts));
    assert.ok(counts.http.answered > 0 && counts.grpc.answered > 0, `the replicas served: ${JSON.stringify(counts)}`);
    assert.match(s.log(), new RegExp(`replica 2 \\(pid ${pids[1]}\\) exited unexpectedly with signal SIGKILL`));
  } finally {
    await s.stop();
    repo.remove();
  }
});
