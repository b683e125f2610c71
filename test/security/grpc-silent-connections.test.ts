/**
 * Connections to the gRPC port that never speak, or stop speaking: 1100 raw TCP sockets that
 * send nothing (more than --grpc-max-connections' 1024) must neither lock real clients out nor
 * stay open past the handshake timeout; an established connection is never closed for them; and
 * an established connection with no call is closed with GOAWAY once idle, unless its client keeps
 * sending or a call is open. Real servers on loopback, real sockets; short timeouts through the
 * server options that the --grpc-* flags set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net, { type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { createGrpcClient, createTensor } from '../../src/client/index.js';
import { startGrpcServer } from '../../src/frontend/grpc/index.js';
import { createFakeServer } from '../frontend/grpc/fake-server.js';
import { startHarness, until } from '../frontend/grpc/harness.js';
import { makeCerts } from '../helpers/make-certs.js';
import { frame, quietLogs } from './grpc-attack-kit.js';

quietLogs();

const SILENT = 1100;
const ANSWER_WITHIN_MS = 15_000;

/** The open-file limit (ulimit -n) must leave room for both ends of every socket: this process holds both. */
function checkFdRoom(): void {
  const soft = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
  const limit = soft === undefined || soft === 'unlimited' ? Infinity : Number(soft);
  assert.ok(limit >= 2 * SILENT + 500, `the open-file limit is ${limit}: too low for ${SILENT} silent sockets and the server's ends`);
}

interface Silent { socket: Socket; openedAt: number; closedAt?: number }

/** `n` connections that send nothing, opened in batches so the listen backlog does not overflow. */
async function openSilent(port: number, n: number): Promise<Silent[]> {
  const all: Silent[] = [];
  for (let i = 0; i < n; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, n - i) }, () => new Promise<void>((resolve) => {
      const s: Silent = { socket: net.connect(port, '127.0.0.1'), openedAt: performance.now() };
      all.push(s);
      s.socket.on('error', () => {});
      s.socket.on('close', () => { s.closedAt = performance.now(); });
      // Silent, not deaf: reading is how a client sees the server's FIN (the socket then closes).
      s.socket.resume();
      // A socket the server closed at once (to make room) may close before or without 'connect'.
      s.socket.once('connect', () => resolve());
      s.socket.once('close', () => resolve());
    })));
  }
  return all;
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(timer));
}

/** The project's client, on a new connection: ServerReady and an inference, each answered within 15 s. */
async function realClientServed(port: number, tls?: { ca: Buffer }): Promise<void> {
  // The test certificate names localhost.
  const client = createGrpcClient(tls ? { address: `localhost:${port}`, tls } : { address: `127.0.0.1:${port}` });
  try {
    assert.equal(await within(client.isServerReady(), ANSWER_WITHIN_MS, 'ServerReady'), true);
    const r = await within(client.infer('echo', [createTensor('IN', 'INT32', [1, 2], Int32Array.of(3, 4))]), ANSWER_WITHIN_MS, 'ModelInfer');
    assert.deepEqual(Array.from(r.outputs[0]!.data as Int32Array), [3, 4]);
  } finally {
    await client.close();
  }
}

/** An HTTP/2 connection from node's client, resolved once the server has its preface and SETTINGS. */
async function h2Session(port: number): Promise<http2.ClientHttp2Session> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  await new Promise<void>((resolve, reject) => { session.once('remoteSettings', () => resolve()); session.once('error', reject); });
  // Our SETTINGS went out with the preface; the server's acknowledgement says it read them.
  await new Promise<void>((resolve) => { if (session.pendingSettingsAck) session.once('localSettings', () => resolve()); else resolve(); });
  return session;
}

/** ServerLive as raw HTTP/2 on `session`: its grpc-status. */
function liveOn(session: http2.ClientHttp2Session): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ServerLive', 'content-type': 'application/grpc', te: 'trailers' });
    req.on('trailers', (h) => resolve(Number(h['grpc-status'])));
    req.on('data', () => {});
    req.on('error', reject);
    req.end(frame(Buffer.alloc(0)));
  });
}

test(`${SILENT} silent sockets: a real client is still served, and every silent socket is closed within the handshake timeout`, async () => {
  checkFdRoom();
  const HANDSHAKE_MS = 1500;
  // Default bounds: 1024 connections, 256 of them pending.
  const s = await startHarness({ handshakeTimeoutMs: HANDSHAKE_MS });
  try {
    // The client and the server share this event loop: the client's protocol files are parsed now, not during the flood.
    await createGrpcClient({ address: `127.0.0.1:${s.grpc.port}` }).close();
    const silent = await openSilent(s.grpc.port, SILENT);
    await realClientServed(s.grpc.port);
    await until(() => silent.every((x) => x.closedAt !== undefined), HANDSHAKE_MS + 10_000);
    // The sweep runs at a quarter of the timeout; the rest of the slack is for a busy machine.
    const longest = Math.max(...silent.map((x) => x.closedAt! - x.openedAt));
    assert.ok(longest < HANDSHAKE_MS + 5000, `a silent socket stayed open ${longest.toFixed(0)} ms`);
    await realClientServed(s.grpc.port);
  } finally {
    await s.close();
  }
});

test(`${SILENT} silent sockets and a long handshake timeout: at most 256 (--grpc-max-pending-connections) stay, the newest`, async () => {
  checkFdRoom();
  const s = await startHarness({ handshakeTimeoutMs: 60_000 });
  let silent: Silent[] = [];
  try {
    await createGrpcClient({ address: `127.0.0.1:${s.grpc.port}` }).close();
    silent = await openSilent(s.grpc.port, SILENT);
    await realClientServed(s.grpc.port);
    const open = () => silent.filter((x) => x.closedAt === undefined);
    await until(() => open().length <= 256, 10_000);
    await new Promise((r) => setTimeout(r, 200));
    const left = open().length;
    // The real client's connection took one pending slot while it handshook, closing one more.
    assert.ok(left >= 250 && left <= 256, `${left} silent sockets are open`);
    assert.ok(silent.slice(0, SILENT - 300).every((x) => x.closedAt !== undefined), 'the oldest were closed');
    assert.ok(silent.slice(-200).every((x) => x.closedAt === undefined), 'the newest are open');
  } finally {
    for (const x of silent) x.socket.destroy();
    await s.close();
  }
});

test(`${SILENT} silent sockets against every slot (a pending bound as large as the connection bound): newcomers take the oldest silent ones' slots, an established connection keeps its own`, async () => {
  checkFdRoom();
  const s = await startHarness({ maxConnections: 1024, maxPendingConnections: 1024, handshakeTimeoutMs: 60_000 });
  const established = await h2Session(s.grpc.port);
  let silent: Silent[] = [];
  try {
    assert.equal(await liveOn(established), 0);
    silent = await openSilent(s.grpc.port, SILENT);
    await realClientServed(s.grpc.port);
    assert.ok(!established.closed && !established.destroyed, 'the established connection was not closed for the flood');
    assert.equal(await liveOn(established), 0);
    const closed = silent.filter((x) => x.closedAt !== undefined).length;
    assert.ok(closed >= SILENT - 1023, `${closed} silent sockets were closed to make room`);
    assert.equal(silent[0]!.closedAt !== undefined, true, 'the oldest went first');
    assert.equal(silent.at(-1)!.closedAt, undefined, 'the newest stays (until its handshake timeout)');
  } finally {
    established.destroy();
    for (const x of silent) x.socket.destroy();
    await s.close();
  }
});

test('idle: a connection with no call that sends nothing gets GOAWAY (no error) and is closed; pings and an open call keep one', async () => {
  const IDLE_MS = 600;
  const s = await startHarness({ idleTimeoutMs: IDLE_MS, handshakeTimeoutMs: 1000 });
  const quiet = await h2Session(s.grpc.port);
  const pinging = await h2Session(s.grpc.port);
  const calling = await h2Session(s.grpc.port);
  const pinger = setInterval(() => pinging.ping(() => {}), 150);
  try {
    const t0 = performance.now();
    const goaway = new Promise<{ code: number; ms: number }>((resolve) => quiet.once('goaway', (code) => resolve({ code, ms: performance.now() - t0 })));
    const closed = new Promise<number>((resolve) => quiet.once('close', () => resolve(performance.now() - t0)));
    // A call to `hang` never answers: its stream stays open without a frame.
    const hung = calling.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelInfer', 'content-type': 'application/grpc', te: 'trailers' });
    hung.on('error', () => {});
    hung.write(frame(Buffer.concat([Buffer.from([0x0a, 4]), Buffer.from('hang')])));
    const g = await goaway;
    assert.equal(g.code, http2.constants.NGHTTP2_NO_ERROR);
    assert.ok(g.ms >= IDLE_MS * 0.9 && g.ms < IDLE_MS + 1500, `GOAWAY after ${g.ms.toFixed(0)} ms`);
    const c = await closed;
    assert.ok(c < IDLE_MS + 3000, `closed after ${c.toFixed(0)} ms`);
    await new Promise((r) => setTimeout(r, 3 * IDLE_MS));
    assert.ok(!pinging.closed && !pinging.destroyed, 'a client that keeps pinging is not idle');
    assert.ok(!calling.closed && !calling.destroyed, 'a connection with a call open is not idle');
    assert.equal(await liveOn(pinging), 0);
    // The call ends: now that connection is idle too.
    const callingAway = new Promise<void>((resolve) => calling.once('goaway', () => resolve()));
    hung.close(http2.constants.NGHTTP2_CANCEL);
    await within(callingAway, IDLE_MS + 3000, 'GOAWAY once the call ended');
  } finally {
    clearInterval(pinger);
    for (const x of [quiet, pinging, calling]) x.destroy();
    await s.close();
  }
});

test('a silent socket to the gRPC port closes at the handshake timeout while a client connected meanwhile is served (one socket, default bounds)', async () => {
  const s = await startHarness({ handshakeTimeoutMs: 500 });
  try {
    const [silent] = await openSilent(s.grpc.port, 1);
    await realClientServed(s.grpc.port);
    await until(() => silent!.closedAt !== undefined, 3000);
  } finally {
    await s.close();
  }
});

test('TLS: silent sockets (more than the pending bound) are closed within the handshake timeout, a TLS client is served meanwhile', async () => {
  const certs = makeCerts();
  const HANDSHAKE_MS = 1000;
  const grpc = await startGrpcServer(createFakeServer(), {
    port: 0, host: '127.0.0.1', handshakeTimeoutMs: HANDSHAKE_MS, maxPendingConnections: 50,
    tls: { cert: certs.pem.serverCert, key: certs.pem.serverKey },
  });
  try {
    await createGrpcClient({ address: `localhost:${grpc.port}`, tls: { ca: certs.pem.ca } }).close();
    const silent = await openSilent(grpc.port, 200);
    await realClientServed(grpc.port, { ca: certs.pem.ca });
    await until(() => silent.every((x) => x.closedAt !== undefined), HANDSHAKE_MS + 10_000);
    const longest = Math.max(...silent.map((x) => x.closedAt! - x.openedAt));
    assert.ok(longest < HANDSHAKE_MS + 5000, `a silent socket stayed open ${longest.toFixed(0)} ms`);
  } finally {
    await grpc.close();
  }
});
