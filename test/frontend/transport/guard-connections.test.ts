/**
 * The connection guard on a real TCP server, whose "handshake" is a client's first line: bounds
 * (pending connections, the oldest closed first; all connections, a newcomer taking a pending
 * one's slot), the handshake timeout, and the idle timeout with its graceful close and the reset
 * that follows when the client does not close its side; and the forced close of every connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net, { type Socket } from 'node:net';
import { guardConnections, type ConnectionLimits, type IdleHooks } from '../../../src/frontend/transport/index.js';
import type { Logger } from '../../../src/logger.js';

const NAMES = { what: 'test', maxConnections: '--max', maxPending: '--pending', handshakeTimeout: '--handshake', idleTimeout: '--idle' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Rig {
  port: number;
  warnings: string[];
  /** Server-side sockets in arrival order. */
  accepted: Socket[];
  counts(): { open: number; pending: number };
  destroyAll(): void;
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A server that counts a connection established when it sends "hello\n"; then "busy\n"/"done\n"
 * mark a call in progress, and a graceful close answers "bye\n" and ends its side.
 */
async function rig(limits: Partial<ConnectionLimits>): Promise<Rig> {
  const warnings: string[] = [];
  const log: Logger = { info: () => {}, error: () => {}, verbose: () => {}, warn: (m) => { warnings.push(m); } };
  const accepted: Socket[] = [];
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    accepted.push(socket);
    let busy = false;
    const hooks: IdleHooks = { busy: () => busy, close: () => socket.end('bye\n') };
    socket.on('error', () => {});
    socket.on('data', (d) => {
      for (const line of d.toString().split('\n')) {
        if (line === 'hello') guard.established(socket, hooks);
        if (line === 'busy') busy = true;
        if (line === 'done') busy = false;
      }
    });
  });
  const guard = guardConnections(server, { maxConnections: 0, maxPending: 100, handshakeTimeoutMs: 0, idleTimeoutMs: 0, ...limits }, log, NAMES);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port, warnings, accepted, counts: guard.counts, destroyAll: guard.destroyAll, allClosed: guard.allClosed,
    close: () => new Promise<void>((r) => { for (const s of accepted) s.destroy(); server.close(() => r()); }),
  };
}

/** `closed`: the server ended or closed the connection (the client keeps its own side open, as a silent peer would). */
interface Client { socket: Socket; closed: boolean; text: string }

/** A client that connects, optionally says hello, and records what it gets and whether the server closed it. */
async function client(port: number, hello = false): Promise<Client> {
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  const c: Client = { socket, closed: false, text: '' };
  socket.on('data', (d) => { c.text += d; });
  socket.on('error', () => {});
  socket.on('end', () => { c.closed = true; });
  socket.on('close', () => { c.closed = true; });
  await new Promise<void>((r) => socket.once('connect', () => r()));
  if (hello) {
    socket.write('hello\n');
    await sleep(30);
  }
  return c;
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(10);
  }
}

test('pending connections past their bound: the oldest are closed first, established ones are not counted', async () => {
  const r = await rig({ maxPending: 3 });
  try {
    const talking = await client(r.port, true);
    const silent: Client[] = [];
    for (let i = 0; i < 5; i++) silent.push(await client(r.port));
    await until(() => silent[0]!.closed && silent[1]!.closed, 2000, 'the two oldest silent ones closed');
    await sleep(100);
    assert.deepEqual(silent.map((c) => c.closed), [true, true, false, false, false]);
    assert.equal(talking.closed, false);
    assert.deepEqual(r.counts(), { open: 4, pending: 3 });
    assert.match(r.warnings.join('\n'), /closed 1 connection\(s\) so far that had not completed their handshake, the oldest first, to make room: 3 were waiting for theirs \(--pending\)/);
    for (const c of [talking, ...silent]) c.socket.destroy();
  } finally {
    await r.close();
  }
});

test('every slot taken: a newcomer closes the oldest pending connection; with all established it is refused', async () => {
  const r = await rig({ maxConnections: 3, maxPending: 3 });
  try {
    const a = await client(r.port, true);
    const s1 = await client(r.port);
    const s2 = await client(r.port);
    const newcomer = await client(r.port);
    await until(() => s1.closed, 2000, 'the oldest pending connection closed');
    assert.equal(s2.closed, false);
    assert.equal(a.closed, false);
    newcomer.socket.write('hello\n');
    s2.socket.write('hello\n');
    await sleep(50);
    const refused = await client(r.port);
    await until(() => refused.closed, 2000, 'the connection past the bound refused');
    assert.ok([a, s2, newcomer].every((c) => !c.closed), 'established connections are never closed for a newcomer');
    assert.equal(r.counts().open, 3);
    assert.match(r.warnings.join('\n'), /refused 1 connection\(s\) so far: 3 established connections are open \(--max\)/);
    for (const c of [a, s2, newcomer]) c.socket.destroy();
  } finally {
    await r.close();
  }
});

test('a connection that does not complete its handshake in time is closed; one that does stays', async () => {
  const r = await rig({ handshakeTimeoutMs: 300 });
  try {
    const t0 = performance.now();
    const silent = await client(r.port);
    const talking = await client(r.port, true);
    await until(() => silent.closed, 2000, 'the silent connection closed');
    const ms = performance.now() - t0;
    assert.ok(ms >= 290 && ms < 3000, `closed after ${ms.toFixed(0)} ms`);
    await sleep(400);
    assert.equal(talking.closed, false);
    assert.match(r.warnings.join('\n'), /closed 1 connection\(s\) so far that did not complete their handshake within 300 ms \(--handshake\)/);
    talking.socket.destroy();
  } finally {
    await r.close();
  }
});

test('idle: closed gracefully after the idle time; bytes and calls in progress keep a connection; a client that never closes is reset', async () => {
  const r = await rig({ idleTimeoutMs: 300, handshakeTimeoutMs: 0 });
  try {
    const quiet = await client(r.port, true);
    const serverSide = r.accepted[0]!;
    let resetAt = 0;
    serverSide.once('close', () => { resetAt = performance.now(); });
    const chatty = await client(r.port, true);
    const busy = await client(r.port, true);
    busy.socket.write('busy\n');
    const ping = setInterval(() => chatty.socket.write('.'), 100);
    await until(() => quiet.text === 'bye\n', 2000, 'the quiet connection told to close');
    const byeAt = performance.now();
    await sleep(600);
    assert.equal(chatty.text, '', 'a connection that keeps sending is not idle');
    assert.equal(busy.text, '', 'a connection with a call in progress is not idle');
    clearInterval(ping);
    busy.socket.write('done\n');
    await until(() => chatty.text === 'bye\n' && busy.text === 'bye\n', 2000, 'both told to close once quiet');
    // The quiet client never ends its side: the server destroys it, 1 s (the least grace) after the graceful close.
    await until(() => resetAt > 0, 3000, 'the server closed a connection whose client did not');
    assert.ok(resetAt - byeAt >= 900, `reset ${(resetAt - byeAt).toFixed(0)} ms after the graceful close`);
    for (const c of [quiet, chatty, busy]) c.socket.destroy();
  } finally {
    await r.close();
  }
});

test('allClosed waits for the last connection to close; destroyAll closes every one still open, pending or established, busy or not', async () => {
  const r = await rig({});
  try {
    await r.allClosed();
    const silent = await client(r.port);
    const talking = await client(r.port, true);
    const busy = await client(r.port, true);
    const leaving = await client(r.port, true);
    busy.socket.write('busy\n');
    await sleep(30);
    assert.deepEqual(r.counts(), { open: 4, pending: 1 });
    let empty = false;
    void r.allClosed().then(() => { empty = true; });
    r.accepted[3]!.destroy();
    await until(() => leaving.closed && r.counts().open === 3, 2000, 'one connection closed');
    await sleep(20);
    assert.equal(empty, false, 'allClosed waits while connections remain');
    r.destroyAll();
    await until(() => empty, 2000, 'allClosed resolves once the rest are destroyed');
    await until(() => [silent, talking, busy].every((c) => c.closed), 2000, 'every client sees its connection closed');
    assert.deepEqual(r.counts(), { open: 0, pending: 0 });
    assert.ok(r.accepted.every((s) => s.destroyed));
    for (const c of [silent, talking, busy, leaving]) c.socket.destroy();
  } finally {
    await r.close();
  }
});
