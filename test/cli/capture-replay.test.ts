/**
 * Capture, inspect and replay as users run them (bin/tributary.js in child processes): `serve` on
 * the built-in pipelines with a capture directory, rate 1 and a CloudEvents receiver; requests to
 * text_routed (English, French) and a non-image to ocr_mapped; `inspect` shows the English request's
 * langid and sentiment steps with their tensors and names ocr_image as where the bad one failed;
 * `replay` against a copy whose switch condition is inverted exits 1 naming the differences, and
 * against the same server (over gRPC, captured in turn) exits 0; the receiver got every request's
 * events, and the metrics port counts the records.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readCaptureDir } from '../../src/capture/index.js';
import { pipelinesDir } from '../pipelines/pipeline-files.js';
import { LOOPBACK, runTributary, startServe, type Served } from '../helpers/tributary-process.js';

const work = mkdtempSync(join(tmpdir(), 'trb-capture-cli-'));
const dir = join(work, 'captures');
const events: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createHttpServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => { body += c; });
  req.on('end', () => { events.push({ headers: req.headers, body }); res.writeHead(202).end(); });
});

let served: Served;
let inverted: Served | undefined;
before(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  served = await startServe([
    '--model-repository', pipelinesDir, ...LOOPBACK, '--model-control-mode', 'explicit', '--load-model', 'text_routed', '--load-model', 'ocr_mapped',
    '--capture-config', `dir=${dir}`, '--capture-config', 'rate=1', '--capture-config', `url=${url}`,
  ], 180_000);
});
after(async () => {
  await served?.stop();
  await inverted?.stop();
  await new Promise((r) => receiver.close(r));
  rmSync(work, { recursive: true, force: true });
});

const infer = (port: number, model: string, body: object) =>
  fetch(`http://127.0.0.1:${port}/v2/models/${model}/infer`, { method: 'POST', body: JSON.stringify(body) });
const text = (id: string, t: string) => ({ id, inputs: [{ name: 'TEXT', datatype: 'BYTES', shape: [1, 1], data: [t] }] });

interface Node { step?: string; model: string; kind: string; status: string; inputs: { name: string; datatype: string; shape: number[]; data?: unknown[] }[]; outputs?: { name: string; data?: unknown[] }[]; children: Node[] }
const flat = (n: Node): Node[] => [n, ...n.children.flatMap(flat)];

test('capture -> inspect -> replay on the built-in pipelines', async () => {
  assert.equal((await infer(served.http, 'text_routed', text('req-en', 'I absolutely love this film, the acting is wonderful and the story is brilliant.'))).status, 200);
  assert.equal((await infer(served.http, 'text_routed', text('req-fr', 'Les enfants jouaient dans le jardin pendant que leurs parents préparaient le dîner.'))).status, 200);
  const bad = await infer(served.http, 'ocr_mapped', { id: 'req-bad', inputs: [{ name: 'IMAGE', datatype: 'BYTES', shape: [1, 1], data: ['this is not an image'] }] });
  assert.equal(bad.status, 400);
  for (let i = 0; i < 200; i++) {
    const { records } = await readCaptureDir(dir).catch(() => ({ records: [] as { record: number }[] }));
    if (records.filter((r) => r.record === 0).length === 3) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(statSync(dir).mode & 0o777, 0o700);

  // inspect: the English request's tree, the langid steps then the sentiment branch, with tensors.
  const en = await runTributary(['inspect', dir, '--id', 'req-en', '--format', 'json']);
  assert.equal(en.code, 0, en.stderr);
  const [req] = JSON.parse(en.stdout) as { request_id: string; status: string; tree: Node[] }[];
  assert.equal(req!.request_id, 'req-en');
  assert.equal(req!.status, 'ok');
  const steps = flat(req!.tree[0]!).filter((n) => n.kind === 'step');
  assert.deepEqual(steps.map((s) => s.step), ['langid_featurize', 'langid_mlp', 'langid_topk', 'sentiment_tokenize', 'sentiment_classifier', 'sentiment_label']);
  const step = (name: string) => steps.find((s) => s.step === name)!;
  assert.deepEqual(step('langid_featurize').inputs[0]!.data, ['I absolutely love this film, the acting is wonderful and the story is brilliant.']);
  assert.deepEqual(step('langid_mlp').inputs[0]!.shape, [1, 620]);
  assert.equal(step('langid_topk').outputs!.find((t) => t.name === 'LANGUAGE')!.data![0], 'eng');
  assert.deepEqual(step('sentiment_label').outputs!.find((t) => t.name === 'LABEL')!.data, ['POSITIVE']);

  // inspect: where the non-image failed, by name, with the input it failed on.
  const badJson = await runTributary(['inspect', dir, '--id', 'req-bad', '--format', 'json']);
  const [badReq] = JSON.parse(badJson.stdout) as { status: string; failed_step: { step: string; model: string; error: string }; tree: Node[] }[];
  assert.equal(badReq!.status, 'error');
  assert.equal(badReq!.failed_step.model, 'ocr_image');
  assert.match(badReq!.failed_step.step, /^ocr_image(#\d+)?$/);
  assert.match(badReq!.failed_step.error, /neither PNG nor JPEG/);
  const failed = flat(badReq!.tree[0]!).find((n) => n.step === badReq!.failed_step.step)!;
  assert.deepEqual(failed.inputs[0]!.data, ['this is not an image']);
  const badText = await runTributary(['inspect', dir, '--id', 'req-bad']);
  assert.match(badText.stdout, /failed at step 'ocr_image(#\d+)?' \(model 'ocr_image'\)/);
  const list = await runTributary(['inspect', dir, '--failed']);
  assert.deepEqual(list.stdout.trim().split('\n').map((l) => l.split(/\s+/)[1]), ['req-bad']);

  // replay against a copy whose switch condition is inverted: the two texts now answer otherwise.
  const copy = join(work, 'pipelines');
  cpSync(pipelinesDir, copy, { recursive: true });
  const config = join(copy, 'text_routed', 'config.yaml');
  const yaml = readFileSync(config, 'utf8');
  assert.ok(yaml.includes(`"top1(probabilities) == 'eng'"`));
  writeFileSync(config, yaml.replace(`"top1(probabilities) == 'eng'"`, `"top1(probabilities) != 'eng'"`));
  inverted = await startServe(['--model-repository', copy, ...LOOPBACK, '--model-control-mode', 'explicit', '--load-model', 'text_routed', '--load-model', 'ocr_mapped'], 180_000);
  const differ = await runTributary(['replay', dir, '--url', `127.0.0.1:${inverted.http}`], 60_000);
  assert.equal(differ.code, 1, differ.stdout + differ.stderr);
  assert.match(differ.stdout, /^3 replayed, 2 differ$/m);
  assert.match(differ.stdout, /req-en \(text_routed\) differs:\n(.*\n)*\s+LABEL: 1 of 1 elements differ: \[0\] "POSITIVE" captured, "unsupported language" now/);
  assert.match(differ.stdout, /req-fr \(text_routed\) differs:\n(.*\n)*\s+SCORE: in the answer now, not in the captured one/);
  const json = await runTributary(['replay', dir, '--url', `127.0.0.1:${inverted.grpc}`, '--protocol', 'grpc', '--format', 'json', '--model', 'text_routed'], 60_000);
  assert.equal(json.code, 1);
  assert.deepEqual((JSON.parse(json.stdout) as { replayed: number; differ: number }), { ...JSON.parse(json.stdout), replayed: 2, differ: 2 });

  // replay against the server that captured them (over gRPC this time): the same answers, exit 0.
  const same = await runTributary(['replay', dir, '--url', `127.0.0.1:${served.grpc}`, '--protocol', 'grpc'], 60_000);
  assert.equal(same.code, 0, same.stdout + same.stderr);
  assert.match(same.stdout, /^3 replayed, 0 differ$/m);
  // The replayed requests came in over gRPC and were captured as the HTTP ones were.
  let again = 0;
  for (let i = 0; i < 200 && again < 2; i++) {
    again = (await readCaptureDir(dir)).records.filter((r) => r.record === 0 && r.request_id === 'req-en').length;
    if (again < 2) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(again, 2);

  // The CloudEvents receiver got each request's request and response event, ce-id the request id.
  const types = (id: string) => events.filter((e) => e.headers['ce-id'] === id).map((e) => e.headers['ce-type']).sort();
  for (const id of ['req-en', 'req-fr', 'req-bad']) {
    assert.deepEqual([...new Set(types(id))], ['org.kubeflow.serving.inference.request', 'org.kubeflow.serving.inference.response'], id);
  }
  const enResponse = events.find((e) => e.headers['ce-id'] === 'req-en' && e.headers['ce-type'] === 'org.kubeflow.serving.inference.response')!;
  assert.equal(JSON.parse(enResponse.body).model_name, 'text_routed');

  // The capture's counters on the metrics port.
  const metrics = await (await fetch(`http://127.0.0.1:${served.metrics}/metrics`)).text();
  const value = (sample: string) => Number(new RegExp(`^${sample.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1]);
  assert.ok(value('tributary_capture_captured_total') >= 15, metrics);
  assert.ok(value('tributary_capture_written_total{sink="dir"}') >= 15);
  assert.ok(value('tributary_capture_written_total{sink="url"}') >= 6);
  assert.equal(value('tributary_capture_queued'), 0);
  assert.match(metrics, /^# TYPE tributary_capture_dropped_total counter$/m);
});
