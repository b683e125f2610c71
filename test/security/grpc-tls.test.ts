/**
 * TLS on the gRPC front end (tritonserver's --grpc-use-ssl / --grpc-use-ssl-mutual and their
 * certificate flags), attacked with the wrong protocol and the wrong certificates. Each refused
 * case checks that no call reached a model and that the server keeps serving good clients.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, loadPackageDefinition, status, type ChannelCredentials } from '@grpc/grpc-js';
import { ClientError, createGrpcClient, createTensor, type InferenceClient } from '../../src/client/index.js';
import { serve } from '../../src/cli/serve.js';
import { loadProtos, startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { createFakeServer, type FakeServer } from '../frontend/grpc/fake-server.js';
import { expectError } from '../helpers/expect-error.js';
import { makeCerts } from '../helpers/make-certs.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { ECHO_CONFIG } from '../helpers/model-configs.js';
import { quietLogs, spawnGrpcServe } from './grpc-attack-kit.js';

quietLogs();
const certs = makeCerts();
const pkg = loadPackageDefinition(loadProtos()) as any;

interface TlsServer { fake: FakeServer; grpc: GrpcServerHandle; address: string }

async function startTls(mutual: boolean): Promise<TlsServer> {
  const fake = createFakeServer();
  const grpc = await startGrpcServer(fake, {
    port: 0, host: '127.0.0.1',
    tls: { cert: certs.pem.serverCert, key: certs.pem.serverKey, rootCert: certs.pem.ca, mutual },
  });
  // The certificate names localhost; an IP target would also work but makes Node warn (RFC 6066).
  return { fake, grpc, address: `localhost:${grpc.port}` };
}

/** ServerLive over a grpc-js channel with these credentials: the answer, or the error's code. */
async function live(address: string, creds: ChannelCredentials): Promise<unknown> {
  const client = new pkg.inference.GRPCInferenceService(address, creds, { 'grpc.initial_reconnect_backoff_ms': 60_000 });
  try {
    return await new Promise((resolve) => client.ServerLive({}, { deadline: Date.now() + 5000 }, (e: any, r: any) => resolve(e ? e.code : r)));
  } finally {
    client.close();
  }
}

const echoInput = () => [createTensor('IN', 'INT32', [1, 2], Int32Array.of(5, -9))];

async function inferWorks(client: InferenceClient): Promise<void> {
  const r = await client.infer('echo', echoInput());
  assert.deepEqual(Array.from(r.outputs[0]!.data as Int32Array), [5, -9]);
}

let tls: TlsServer;
let mtls: TlsServer;
before(async () => {
  tls = await startTls(false);
  mtls = await startTls(true);
});
after(async () => {
  await tls.grpc.close();
  await mtls.grpc.close();
});

// --- server TLS ---

test('the SDK over TLS with the CA: metadata and inference work', async () => {
  const client = createGrpcClient({ address: tls.address, tls: { ca: certs.pem.ca } });
  try {
    assert.equal(await client.isServerLive(), true);
    await inferWorks(client);
    assert.equal(tls.fake.requests.length, 1);
  } finally {
    await client.close();
  }
});

test('plain-text gRPC to the TLS port is refused (UNAVAILABLE); TLS clients keep working', async () => {
  const before = tls.fake.requests.length;
  assert.equal(await live(tls.address, credentials.createInsecure()), status.UNAVAILABLE);
  assert.equal(tls.fake.requests.length, before);
  assert.deepEqual(await live(tls.address, credentials.createSsl(certs.pem.ca)), { live: true });
});

test('raw HTTP/1.1 bytes to the TLS port: the server closes the socket without an HTTP answer, and keeps serving', async () => {
  const answer = await new Promise<Buffer>((resolve, reject) => {
    const socket = net.connect(tls.grpc.port, '127.0.0.1');
    const got: Buffer[] = [];
    socket.on('data', (d) => got.push(d));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(got)));
    socket.setTimeout(5000, () => { socket.destroy(); reject(new Error('the server kept a plain-text socket open')); });
    socket.write('POST /inference.GRPCInferenceService/ServerLive HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
  });
  // Nothing, or a TLS alert record (content type 21): never an HTTP answer.
  assert.ok(answer.length === 0 || answer[0] === 21, `answered ${answer.subarray(0, 16).toString('hex')}`);
  assert.deepEqual(await live(tls.address, credentials.createSsl(certs.pem.ca)), { live: true });
});

test('a client that does not trust the server\'s CA refuses the connection (no silent downgrade)', async () => {
  assert.equal(await live(tls.address, credentials.createSsl(certs.pem.strangerCert)), status.UNAVAILABLE);
  const sdk = createGrpcClient({ address: `grpcs://${tls.address}` }); // the system roots only
  try {
    const e = await sdk.isServerLive().then(() => assert.fail('connected'), (err: unknown) => err);
    assert.ok(e instanceof ClientError && e.kind === 'UNAVAILABLE', String(e));
  } finally {
    await sdk.close();
  }
});

test('a TLS client against a plain-text server fails cleanly (UNAVAILABLE)', async () => {
  const fake = createFakeServer();
  const plain = await startGrpcServer(fake, { port: 0, host: '127.0.0.1' });
  try {
    assert.equal(await live(`localhost:${plain.port}`, credentials.createSsl(certs.pem.ca)), status.UNAVAILABLE);
    assert.equal(fake.requests.length, 0);
  } finally {
    await plain.close();
  }
});

// --- mutual TLS ---

test('mutual TLS: a client without a certificate is refused, nothing reaches a model', async () => {
  assert.equal(await live(mtls.address, credentials.createSsl(certs.pem.ca)), status.UNAVAILABLE);
  const sdk = createGrpcClient({ address: mtls.address, tls: { ca: certs.pem.ca } });
  try {
    const e = await sdk.infer('echo', echoInput()).then(() => assert.fail('served'), (err: unknown) => err);
    assert.ok(e instanceof ClientError && e.kind === 'UNAVAILABLE', String(e));
  } finally {
    await sdk.close();
  }
  assert.equal(mtls.fake.requests.length, 0);
});

test('mutual TLS: a certificate from another CA is refused, nothing reaches a model', async () => {
  const sdk = createGrpcClient({ address: mtls.address, tls: { ca: certs.pem.ca, cert: certs.pem.strangerCert, key: certs.pem.strangerKey } });
  try {
    const e = await sdk.infer('echo', echoInput()).then(() => assert.fail('served'), (err: unknown) => err);
    assert.ok(e instanceof ClientError && e.kind === 'UNAVAILABLE', String(e));
  } finally {
    await sdk.close();
  }
  assert.equal(mtls.fake.requests.length, 0);
});

test('mutual TLS: plain text is refused', async () => {
  assert.equal(await live(mtls.address, credentials.createInsecure()), status.UNAVAILABLE);
  assert.equal(mtls.fake.requests.length, 0);
});

test('mutual TLS: the SDK with the right client certificate infers and streams', async () => {
  const sdk = createGrpcClient({ address: mtls.address, tls: { ca: certs.pem.ca, cert: certs.pem.clientCert, key: certs.pem.clientKey } });
  try {
    await inferWorks(sdk);
    const streamed = [];
    for await (const r of sdk.stream('repeat', [createTensor('IN', 'INT32', [1], Int32Array.of(3))])) streamed.push(r);
    assert.equal(streamed.length, 3);
  } finally {
    await sdk.close();
  }
});

test('the SDK refuses a client certificate without its key before connecting', () => {
  assert.throws(() => createGrpcClient({ address: mtls.address, tls: { ca: certs.pem.ca, cert: certs.pem.clientCert } }),
    (e: unknown) => e instanceof ClientError && e.kind === 'INVALID_ARG' && /tls\.cert and tls\.key go together/.test(e.message));
});

// --- the command line: files are checked before any model loads, errors name the flag ---

const tmp = mkdtempSync(join(tmpdir(), 'tributary-grpc-tls-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const serveError = (...args: string[]) => expectError(serve(['--model-repository', tmp, '--allow-http', 'false', '--allow-metrics', 'false', ...args]));
const keyText = certs.pem.serverKey.toString().split('\n')[1]!;

test('CLI: --grpc-use-ssl without --grpc-server-cert names the missing flag', async () => {
  const e = await serveError('--grpc-use-ssl', 'true', '--grpc-server-key', certs.files.serverKey);
  assert.equal(e.code, 'TRB_GRPC_TLS_INVALID');
  assert.equal(e.message, 'gRPC TLS: --grpc-use-ssl=true needs --grpc-server-cert');
});

test('CLI: a certificate file that does not exist names the flag and the file', async () => {
  const missing = join(tmp, 'nope.crt');
  const e = await serveError('--grpc-use-ssl', 'true', '--grpc-server-cert', missing, '--grpc-server-key', certs.files.serverKey);
  assert.equal(e.message, `gRPC TLS: --grpc-server-cert: cannot read '${missing}' (ENOENT)`);
});

test('CLI: a key that does not match the certificate is refused at start, without printing the key', async () => {
  const e = await serveError('--grpc-use-ssl', 'true', '--grpc-server-cert', certs.files.serverCert, '--grpc-server-key', certs.files.strangerKey);
  assert.match(e.message, /^gRPC TLS: the server certificate \(--grpc-server-cert\) and key \(--grpc-server-key\) are not a usable PEM pair: /);
  assert.ok(!e.message.includes(certs.pem.strangerKey.toString().split('\n')[1]!), 'no key material in the message');
});

test('CLI: the key given as the certificate is refused without echoing the key', async () => {
  const e = await serveError('--grpc-use-ssl', 'true', '--grpc-server-cert', certs.files.serverKey, '--grpc-server-key', certs.files.serverKey);
  assert.equal(e.code, 'TRB_GRPC_TLS_INVALID');
  assert.ok(!e.message.includes(keyText) && !e.message.includes('PRIVATE KEY'), e.message);
});

test('CLI: --grpc-use-ssl-mutual without --grpc-root-cert names the missing flag', async () => {
  const e = await serveError('--grpc-use-ssl-mutual', 'true', '--grpc-server-cert', certs.files.serverCert, '--grpc-server-key', certs.files.serverKey);
  assert.equal(e.message, 'gRPC TLS: --grpc-use-ssl-mutual=true needs --grpc-root-cert');
});

test('CLI end to end: tributary serve --grpc-use-ssl-mutual serves the right client certificate only', async () => {
  let repo: TempRepo | undefined;
  const child = await (async () => {
    repo = tempRepo({ 'echo/config.pbtxt': ECHO_CONFIG, 'echo/1/.keep': '' });
    return spawnGrpcServe(repo.dir, ['--grpc-use-ssl-mutual', 'true', '--grpc-server-cert', certs.files.serverCert,
      '--grpc-server-key', certs.files.serverKey, '--grpc-root-cert', certs.files.ca]);
  })();
  const address = `localhost:${child.grpcPort}`;
  const good = createGrpcClient({ address, tls: { ca: certs.pem.ca, cert: certs.pem.clientCert, key: certs.pem.clientKey } });
  try {
    assert.equal(await live(address, credentials.createSsl(certs.pem.ca)), status.UNAVAILABLE);
    assert.equal(await live(address, credentials.createInsecure()), status.UNAVAILABLE);
    assert.equal(await live(address, credentials.createSsl(certs.pem.ca, certs.pem.strangerKey, certs.pem.strangerCert)), status.UNAVAILABLE);
    const r = await good.infer('echo', [createTensor('IN', 'INT32', [1, 2], Int32Array.of(4, 2))]);
    assert.deepEqual(Array.from(r.outputs[0]!.data as Int32Array), [4, 2]);
  } finally {
    await good.close();
    await child.stop();
    repo?.remove();
  }
});
