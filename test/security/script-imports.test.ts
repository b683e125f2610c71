/**
 * A TypeScript model is bundled and type-checked on the host, so its imports must not read the
 * host's files: each attack below tries to pull a sentinel file from outside the model directory
 * into the bundle (or into a diagnostic), once from a repository on disk and once through the HTTP
 * load API with uploaded files. Every attempt must be refused with 400, name the importing file
 * with line and column, name none of the server's directories, and never show the sentinel.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { bundleScript } from '../../backends/typescript/bundle-script.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { setLogSink } from '../../src/logger.js';
import { createServer, type Server } from '../../src/server/index.js';

const SECRET = `TRIBUTARY-SENTINEL-${randomUUID()}`;
const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const base = mkdtempSync(join(tmpdir(), 'trb-script-imports-'));
const OUT = join(base, 'outside');
const REPO = join(base, 'repo');
/** Climbs to / from any model directory, then down to OUT: reaches it from disk and from an upload. */
const UP = '../'.repeat(24) + OUT.slice(1);

const outside: Record<string, string> = {
  'secret.txt': SECRET,
  secret: `root:x:${SECRET}`,
  'secret.json': JSON.stringify({ token: SECRET }),
  'secret.js': `export default '${SECRET}';\n`,
  'secret-types.ts': `export type Leak = '${SECRET}';\nexport const leak = '${SECRET}';\n`,
  'secret-global.d.ts': `declare const LEAKED: '${SECRET}';\n`,
  'shared-tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { cfg: ['./secret.json'] } } }),
};
const snapshot = () => readdirSync(OUT).sort().map((f) => `${f}=${readFileSync(join(OUT, f), 'utf8')}`).join('\n');
let before0 = '';

const logs: string[] = [];
let server: Server;
let http: HttpServerHandle;
let url = '';

before(async () => {
  mkdirSync(OUT, { recursive: true });
  for (const [f, text] of Object.entries(outside)) writeFileSync(join(OUT, f), text);
  before0 = snapshot();
  // node_modules above the model directories (the repository's own): not installed packages.
  for (const pkg of ['shadowed', 'jpeg-js']) {
    mkdirSync(join(REPO, 'node_modules', pkg), { recursive: true });
    writeFileSync(join(REPO, 'node_modules', pkg, 'package.json'), JSON.stringify({ name: pkg, main: 'index.js' }));
    writeFileSync(join(REPO, 'node_modules', pkg, 'index.js'), `exports.decode = () => '${SECRET}';\n`);
  }
  setLogSink((line) => { logs.push(line); });
  server = await createServer({ modelRepository: REPO, modelControlMode: 'explicit' });
  http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${http.port}`;
});
after(async () => {
  await http.close();
  await server.close();
  rmSync(base, { recursive: true, force: true });
});

const post = async (path: string, body: unknown) => {
  const r = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
};

const configJson = (name: string, typeCheck = 'error') => JSON.stringify({
  name, backend: 'typescript', max_batch_size: 0,
  input: [{ name: 'X', data_type: 'TYPE_FP32', dims: [-1] }],
  output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: [-1] }],
  parameters: { type_check: { string_value: typeCheck } },
});
const configPbtxt = (name: string, typeCheck = 'error') => `name: "${name}"
backend: "typescript"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1 ] } ]
parameters { key: "type_check" value: { string_value: "${typeCheck}" } }
`;

/** Upload through `POST .../load` (Triton's `file:` parameters), or write to the repository and load. */
async function load(name: string, files: Record<string, string>, how: 'disk' | 'upload', links: Array<[string, string]> = [], typeCheck = 'error') {
  if (how === 'upload') {
    const parameters: Record<string, string> = { config: configJson(name, typeCheck) };
    for (const [rel, text] of Object.entries(files)) parameters[`file:${rel}`] = Buffer.from(text).toString('base64');
    return post(`/v2/repository/models/${name}/load`, { parameters });
  }
  const dir = join(REPO, name);
  for (const [rel, text] of Object.entries({ ...files, 'config.pbtxt': configPbtxt(name, typeCheck) })) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  for (const [link, target] of links) {
    mkdirSync(dirname(join(dir, link)), { recursive: true });
    symlinkSync(target, join(dir, link));
  }
  return post(`/v2/repository/models/${name}/load`, {});
}

/** A model whose line 2 holds the attack; the class keeps everything else valid. */
const model = (attack: string) => `// attack on the next line\n${attack}\nexport default class Model { execute(): never[] { return []; } }\n`;
const helper = (attack: string) => ({ '1/model.ts': model("import './helper.js';"), '1/helper.ts': `${attack}\nexport const x = 1;\n` });

interface Attack {
  name: string;
  files: Record<string, string>;
  /** Where the refusal points: "<file>:<line>:" (the column is checked to be a number). */
  at: string;
  /** What the message says beyond the location. */
  says: RegExp;
  links?: Array<[string, string]>;
  /** 'off' where the type checker would refuse first and hide what the bundler does. */
  typeCheck?: string;
}

const REFUSED = /is refused: /;
const NOT_FOUND = /Could not resolve|TS2307|TS6053/;
const attacks: Attack[] = [
  { name: 'absolute path with a text attribute', files: { '1/model.ts': model(`import s from '${OUT}/secret' with { type: 'text' }; export { s };`) }, at: '1/model.ts:2:', says: /it is an absolute path/ },
  { name: 'absolute path to JSON (default loader)', files: { '1/model.ts': model(`import s from '${OUT}/secret.json'; export { s };`) }, at: '1/model.ts:2:', says: /it is an absolute path/ },
  { name: 'relative path leaving the model directory (.txt default loader)', files: { '1/model.ts': model(`import s from '${UP}/secret.txt'; export { s };`) }, at: '1/model.ts:2:', says: /it leaves the model directory/ },
  { name: 'relative path with a bytes attribute', files: { '1/model.ts': model(`import s from '${UP}/secret' with { type: 'bytes' }; export { s };`) }, at: '1/model.ts:2:', says: /it leaves the model directory/ },
  { name: 'file:// URL', files: { '1/model.ts': model(`import s from 'file://${OUT}/secret.json'; export { s };`) }, at: '1/model.ts:2:', says: /file: URLs are not followed/ },
  { name: 'FILE: URL in upper case', files: { '1/model.ts': model(`import s from 'FILE://${OUT}/secret.txt'; export { s };`) }, at: '1/model.ts:2:', says: /file: URLs are not followed/ },
  { name: 'require() of an absolute path', files: { '1/model.ts': model(`declare const require: (p: string) => unknown; export const s = require('${OUT}/secret.json');`) }, at: '1/model.ts:2:', says: /it is an absolute path/ },
  { name: 'dynamic import() leaving the model directory', files: { '1/model.ts': model(`export const s = () => import('${UP}/secret.js');`) }, at: '1/model.ts:2:', says: /it leaves the model directory/ },
  { name: 're-export from outside', files: { '1/model.ts': model(`export { default as s } from '${UP}/secret.js';`) }, at: '1/model.ts:2:', says: /it leaves the model directory/ },
  { name: 'glob import through a template', files: { '1/model.ts': model(`export const s = (n: string) => import(\`${UP}/\${n}.json\`);`) }, at: '1/model.ts:2:', says: /its path is computed/ },
  { name: "glob require through '+'", files: { '1/model.ts': model(`declare const require: (p: string) => unknown; export const s = (n: string) => require('${UP}/' + n);`) }, at: '1/model.ts:2:', says: /its path is computed/ },
  { name: 'glob with the prefix folded from literals', files: { '1/model.ts': model(`export const s = (n: string) => import(\`\${'${UP}/'}\${n}\`);`) }, at: '1/model.ts:2:', says: /its path is computed/ },
  { name: 'a helper file imports from outside', files: helper(`import s from '${UP}/secret.txt'; export { s };`), at: '1/helper.ts:1:', says: /it leaves the model directory/ },
  { name: "the model's own package whose main points outside", files: { '1/model.ts': model("import s from 'evil'; export { s };"), '1/node_modules/evil/package.json': JSON.stringify({ name: 'evil', main: `${UP}/secret.json` }) }, at: '1/model.ts:2:', says: /must resolve to an installed package/ },
  { name: "the model's own package requires a file outside", files: { '1/model.ts': model("import s from 'evil'; export { s };"), '1/node_modules/evil/package.json': '{"name":"evil","main":"index.js"}', '1/node_modules/evil/index.js': `module.exports = require('${UP}/secret.json');\n` }, at: '1/node_modules/evil/index.js:1:', says: /it leaves the model directory/ },
  { name: 'bare import climbing out of node_modules', files: { '1/model.ts': model("import s from 'typescript/../../package.json' with { type: 'text' }; export { s };") }, at: '1/model.ts:2:', says: /must resolve to an installed package/ },
  { name: 'tsconfig.json paths to a file outside', files: { '1/model.ts': model("import s from 'cfg'; export { s };"), 'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { cfg: [`${OUT}/secret.json`] } } }) }, at: '1/model.ts:2:', says: NOT_FOUND, typeCheck: 'off' },
  { name: 'tsconfig.json baseUrl outside', files: { '1/model.ts': model("import s from 'secret.json'; export { s };"), '1/tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: OUT } }) }, at: '1/model.ts:2:', says: NOT_FOUND, typeCheck: 'off' },
  { name: 'tsconfig.json extends a file outside', files: { '1/model.ts': model("import s from 'cfg'; export { s };"), 'tsconfig.json': JSON.stringify({ extends: `${OUT}/shared-tsconfig.json` }) }, at: '1/model.ts:2:', says: NOT_FOUND, typeCheck: 'off' },
  { name: 'import type of a file outside (type checker)', files: { '1/model.ts': model(`import type { Leak } from '${UP}/secret-types';\nexport const n: number = null as unknown as Leak;`) }, at: '1/model.ts:2:', says: /TS2307/ },
  { name: 'type query of a file outside (type checker)', files: { '1/model.ts': model(`export const n: number = null as unknown as typeof import('${UP}/secret-types').leak;`) }, at: '1/model.ts:2:', says: /TS2307/ },
  { name: 'triple-slash reference to a file outside (type checker)', files: { '1/model.ts': `// attack on the next line\n/// <reference path="${UP}/secret-global.d.ts" />\nexport const n: number = LEAKED;\nexport default class Model { execute(): never[] { return []; } }\n` }, at: '1/model.ts:2:', says: /TS6053/ },
];

const diskOnly: Attack[] = [
  { name: 'symlinked file pointing outside', files: { '1/model.ts': model("import s from './link.txt'; export { s };") }, links: [['1/link.txt', join(OUT, 'secret.txt')]], at: '1/model.ts:2:', says: /through a symbolic link/ },
  { name: 'symlinked directory pointing outside', files: { '1/model.ts': model("import s from './lib/secret.json'; export { s };") }, links: [['1/lib', OUT]], at: '1/model.ts:2:', says: /through a symbolic link/ },
  { name: 'symlinked node_modules package pointing outside', files: { '1/model.ts': model("import s from 'evil/secret.json'; export { s };") }, links: [['1/node_modules/evil', OUT]], at: '1/model.ts:2:', says: /must resolve to an installed package/ },
  { name: 'a package in a node_modules above the model directory', files: { '1/model.ts': model("import s from 'shadowed'; export { s };") }, at: '1/model.ts:2:', says: /must resolve to an installed package/ },
  { name: 'glob under a symlinked directory', files: { '1/model.ts': model('export const s = (n: string) => import(`./data/${n}.json`);') }, links: [['1/data', OUT]], at: '1/model.ts:2:', says: /leaves the model directory through a symbolic link/ },
];

function checkRefusal(a: Attack, name: string, r: { status: number; text: string }, fromLogs: string[]) {
  assert.equal(r.status, 400, r.text);
  const msg = (JSON.parse(r.text) as { error: string }).error;
  assert.ok(msg.startsWith(`load failed for model '${name}': version 1 is at UNAVAILABLE state: `), msg);
  assert.match(msg, new RegExp(`(^|\\s)${a.at.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\d+: `), `location ${a.at}<col> in: ${msg}`);
  assert.match(msg, a.says);
  for (const p of [REPO, PROJECT, 'tributary-load-']) assert.ok(!msg.includes(p), `message names a server path (${p}): ${msg}`);
  for (const text of [r.text, ...fromLogs]) assert.ok(!text.includes(SECRET), `the sentinel leaked: ${text}`);
}

for (const a of [...attacks, ...diskOnly]) {
  const name = `d_${a.name.replace(/\W+/g, '_')}`.slice(0, 60);
  test(`disk: ${a.name}`, async () => {
    const mark = logs.length;
    const r = await load(name, a.files, 'disk', a.links, a.typeCheck);
    checkRefusal(a, name, r, logs.slice(mark));
    const index = await post('/v2/repository/index', {});
    assert.ok(!index.text.includes(SECRET), 'the repository index shows the sentinel');
    // The bundler alone: refused, or (for type-level attacks) a bundle without the sentinel.
    const b = await bundleScript(join(REPO, name, '1', 'model.ts'), join(REPO, name));
    assert.ok(!(b.ok ? b.bundle.code : b.errors.join('\n')).includes(SECRET), 'the sentinel is in the bundle');
  });
}

for (const a of attacks) {
  const name = `u_${a.name.replace(/\W+/g, '_')}`.slice(0, 60);
  test(`upload: ${a.name}`, async () => {
    const mark = logs.length;
    checkRefusal(a, name, await load(name, a.files, 'upload', [], a.typeCheck), logs.slice(mark));
  });
}

const good = {
  '1/model.ts': `import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
import { scale } from './helper.js';
import { offset } from 'mine';
import table from './data/table.json';
const part = (n: string) => import(\`./data/\${n}.json\`);
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    void part;
    const bonus = typeof Tokenizer === 'function' ? table.one : 0;
    return requests.map((r) => {
      const x = r.input('X').data as Float32Array;
      return new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', [x.length], x.map((v) => v * scale + offset + bonus))] });
    });
  }
}
`,
  '1/helper.ts': 'export const scale = 10;\n',
  '1/data/table.json': '{"one":1}',
  '1/node_modules/mine/package.json': '{"name":"mine","main":"index.js"}',
  '1/node_modules/mine/index.js': 'exports.offset = 100;\n',
  '1/node_modules/mine/index.d.ts': 'export declare const offset: number;\n',
};

for (const how of ['disk', 'upload'] as const) {
  test(`${how}: a helper file, the model's own package, a package of the server and a glob inside the model still work`, async () => {
    const name = `ok_${how}`;
    const r = await load(name, good, how);
    assert.equal(r.status, 200, r.text);
    const res = await post(`/v2/models/${name}/infer`, { inputs: [{ name: 'X', datatype: 'FP32', shape: [2], data: [1, 2] }] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual((JSON.parse(res.text) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data, [111, 121]);
  });
}

test("a package shadowed in a node_modules above the model directory comes from the server's packages", async () => {
  const files = { '1/model.ts': "import { decode } from 'jpeg-js';\nexport default class Model { d = decode; execute(): never[] { return []; } }\n" };
  const r = await load('shadowed_pkg', files, 'disk');
  assert.equal(r.status, 200, r.text);
  const b = await bundleScript(join(REPO, 'shadowed_pkg', '1', 'model.ts'), join(REPO, 'shadowed_pkg'));
  assert.ok(b.ok, b.ok ? '' : b.errors.join('\n'));
  assert.ok(!b.bundle.code.includes(SECRET), 'the bundle holds the shadowing copy');
  assert.match(b.bundle.code, /JpegImage|jpeg/i, "the bundle holds the server's jpeg-js");
});

test('type_check "warn": the warnings about a file outside never quote it', async () => {
  const mark = logs.length;
  const files = { '1/model.ts': `/// <reference path="${UP}/secret-global.d.ts" />\nexport const f = (): number => LEAKED;\nexport default class Model { execute(): never[] { return []; } }\n` };
  const r = await load('warn_reference', files, 'upload', [], 'warn');
  assert.equal(r.status, 200, r.text);
  const warned = logs.slice(mark).join('\n');
  assert.match(warned, /1\/model\.ts:1:\d+: TS6053/);
  assert.ok(!warned.includes(SECRET), warned);
  assert.ok(!warned.includes('tributary-load-'), warned);
});

test('args.files leaves out symbolic links, to a file or a directory outside', async () => {
  const files = { '1/model.ts': `import { InferenceResponse, Tensor, type InitializeArgs, type Request } from 'tributary/bls';
export default class Model {
  seen: number[] = [];
  initialize(args: InitializeArgs): void {
    const names = Object.keys(args.files);
    const text = names.map((n) => new TextDecoder().decode(args.files[n])).join('');
    this.seen = [names.length, names.filter((n) => n.includes('link')).length, text.includes(['root', 'x', ''].join(':')) ? 1 : 0];
  }
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map(() => new InferenceResponse({ outputs: [new Tensor('Y', 'FP32', [3], this.seen)] }));
  }
}
`, 'labels.txt': 'a\n' };
  const r = await load('files_links', files, 'disk', [['link.txt', join(OUT, 'secret.txt')], ['linkdir', OUT], ['1/secret', join(OUT, 'secret')]]);
  assert.equal(r.status, 200, r.text);
  const res = await post('/v2/models/files_links/infer', { inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [0] }] });
  assert.equal(res.status, 200, res.text);
  assert.ok(!res.text.includes(SECRET));
  // model.ts, labels.txt and config.pbtxt; no link, and nothing read through one
  assert.deepEqual((JSON.parse(res.text) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data, [3, 0, 0]);
});

test('nothing outside the model directories was written or changed', () => {
  assert.equal(snapshot(), before0);
});
