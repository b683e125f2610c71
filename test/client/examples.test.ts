/**
 * examples/client/ against the real server on the built-in pipelines plus examples/client/models:
 * the exported functions over both transports, and each script run as a user would.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createServer, type Server } from '../../src/server/index.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/frontend/grpc/index.js';
import { pipelinesDir } from '../pipelines/pipeline-files.js';
import { connect, topLanguages } from '../../examples/client/infer.js';
import { sentenceLanguages } from '../../examples/client/stream.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let server: Server;
let http: HttpServerHandle;
let grpc: GrpcServerHandle;
let env: NodeJS.ProcessEnv;

before(async () => {
  server = await createServer({
    modelRepository: [pipelinesDir, join(root, 'examples/client/models')],
    modelControlMode: 'explicit', loadModels: ['langid', 'sentence_langid'],
  });
  http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  grpc = await startGrpcServer(server, { port: 0, host: '127.0.0.1' });
  env = { ...process.env, TRIBUTARY_URL: `http://127.0.0.1:${http.port}`, TRIBUTARY_GRPC: `127.0.0.1:${grpc.port}` };
  Object.assign(process.env, { TRIBUTARY_URL: env.TRIBUTARY_URL, TRIBUTARY_GRPC: env.TRIBUTARY_GRPC });
});
after(async () => {
  await grpc.close();
  await http.close();
  await server.close();
});

const TEXT = 'Die Kinder spielten den ganzen Nachmittag im Garten. Los niños jugaban en el jardín toda la tarde. '
  + 'Les enfants jouaient dans le jardin tout l\'après-midi.';

for (const transport of ['http', 'grpc']) {
  test(`${transport}: infer.ts topLanguages and stream.ts sentenceLanguages`, async () => {
    const client = connect(transport);
    try {
      const [guess] = await topLanguages(client, ['Die Kinder spielten den ganzen Nachmittag im Garten.']);
      assert.equal(guess!.length, 2);
      assert.equal(guess![0]!.language, 'deu');
      assert.ok(guess![0]!.probability >= guess![1]!.probability);
      const seen = [];
      for await (const s of sentenceLanguages(client, TEXT)) seen.push([s.language, s.sentence.slice(0, 8)]);
      assert.deepEqual(seen, [['deu', 'Die Kind'], ['spa', 'Los niño'], ['fra', 'Les enfa']]);
      for await (const s of sentenceLanguages(client, TEXT)) { assert.equal(s.language, 'deu'); break; }
    } finally {
      await client.close();
    }
  });
}

test('the scripts run from the command line', async () => {
  const run = promisify(execFile);
  const a = await run(process.execPath, ['--import', 'tsx', 'examples/client/infer.ts', 'grpc', 'Le train part à huit heures du matin.'], { cwd: root, env });
  assert.match(a.stdout, /^grpc: langid v1 TEXT BYTES/);
  assert.match(a.stdout, /\n {2}fra \d\.\d{3}/);
  const b = await run(process.execPath, ['--import', 'tsx', 'examples/client/stream.ts', 'http', TEXT], { cwd: root, env });
  assert.deepEqual(b.stdout.trim().split('\n').map((l) => l.split(' ')[0]), ['deu', 'spa', 'fra']);
});
