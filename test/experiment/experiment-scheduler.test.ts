/**
 * The router inside an experiment model (src/experiment/experiment-scheduler.ts), with the random
 * source injected and a host that plays the variants: the choice per request, the relayed answer
 * naming its variant, the mirror's bound and counts, cancellation and stop.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastValueFrom, Observable, of, Subject, throwError, toArray } from 'rxjs';
import { parseConfigText, type ModelConfig } from '../../src/config/index.js';
import { Errors } from '../../src/errors.js';
import { compileExperiment, createExperimentScheduler, createRoutingHeaders, type MirrorOutcome, type PlanVariant } from '../../src/experiment/index.js';
import type { InferenceRequest, InferenceResponse } from '../../src/inference/index.js';
import { Model, StatsCollector } from '../../src/model/index.js';
import { systemClock } from '../../src/scheduler/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { addConfig } from './experiment-repo.js';

const variant = (name: string) => parseConfigText(addConfig(name), `${name}/config.yaml`, 'yaml').config;

interface Host {
  infer(r: InferenceRequest): Observable<InferenceResponse>;
  seen: InferenceRequest[];
}

/** Variants answer Y = X at once; `mirror` decides what the shadow does. */
function host(mirror: (r: InferenceRequest) => Observable<InferenceResponse> = () => of()): Host {
  const seen: InferenceRequest[] = [];
  return {
    seen,
    infer(r) {
      seen.push(r);
      if (r.model === 'shadow') return mirror(r);
      if (r.model === 'refuses') return throwError(() => Errors.modelNotFound('refuses'));
      return of({ model: r.model, version: r.version ?? '3', outputs: [{ ...r.inputs[0]!, name: 'Y' }], final: true, parameters: { own: 1 } });
    },
  };
}

function experiment(yaml: string, h: Host, o: { random?: () => number; headers?: ReturnType<typeof createRoutingHeaders> } = {}) {
  const parsed = parseConfigText(yaml, 'e/config.yaml', 'yaml');
  const configs = new Map<string, ModelConfig>(['a', 'b', 'shadow', 'refuses'].map((n) => [n, variant(n)]));
  const compiled = compileExperiment(parsed.config, (m) => configs.get(m), () => ({ file: 'e/config.yaml', line: 1, col: 1 }));
  assert.deepEqual(compiled.problems, []);
  const routed: PlanVariant[] = [];
  const mirrored: MirrorOutcome[] = [];
  let stop: (() => Promise<void>) | undefined;
  const model = new Model({
    config: compiled.config!, version: '1', clock: systemClock, stats: new StatsCollector('e', '1', () => []),
    createScheduler: (hooks) => {
      const s = createExperimentScheduler(compiled.plan!, {
        host: h, hooks, onRoute: (v) => routed.push(v), onMirror: (m) => mirrored.push(m),
        ...(o.random ? { random: o.random } : {}), ...(o.headers ? { routingHeaders: o.headers } : {}),
      });
      stop = () => s.stop();
      return s;
    },
  });
  return { model, routed, mirrored, stop: () => stop!() };
}

const request = (x: number, extra: Partial<InferenceRequest> = {}): InferenceRequest => ({ model: 'e', inputs: [createTensor('X', 'FP32', [1, 1], [x])], ...extra });
const SPLIT = 'name: e\nexperiment:\n  variants:\n    - { model: a, weight: 3 }\n    - { model: b, weight: 1 }\n';

test('weighted random with the injected source; the answer is the variant\'s, naming it and the version that served', async () => {
  const points = [0.1, 0.74, 0.75, 0.99];
  const h = host();
  const e = experiment(SPLIT, h, { random: () => points.shift()! });
  const answers = [];
  // Classification is the variant's to apply: the experiment relays outputs as they come.
  const classify = { outputs: [{ name: 'Y', parameters: { classification: 1 } }] };
  for (let i = 0; i < 4; i++) answers.push(await lastValueFrom(e.model.infer(request(i, classify))));
  assert.deepEqual(e.routed.map((v) => v.variant), ['a', 'a', 'b', 'b']);
  assert.deepEqual(h.seen.map((r) => r.model), ['a', 'a', 'b', 'b']);
  assert.equal(h.seen[0]!.version, undefined, "no pinned version: the variant's default");
  assert.equal(h.seen[0]!.signal, undefined, 'unsubscribing cancels the variant; no signal is handed on');
  const first = answers[0]!;
  assert.equal(first.model, 'e');
  assert.equal(first.version, '1');
  assert.deepEqual(first.parameters, { own: 1, experiment_variant: 'a', experiment_variant_version: '3' });
  assert.deepEqual(Array.from(first.outputs[0]!.data as Float32Array), [0]);
  assert.deepEqual(h.seen[0]!.outputs, classify.outputs, 'the variant is asked for the classification');
  assert.equal(e.model.statistics().inference_stats.success.count, 4);
});

test('sticky on a parameter: one value, one variant; a pinned version is asked for and labels the variant', async () => {
  const yaml = 'name: e\nexperiment:\n  variants:\n    - { model: a, version: "2", weight: 1 }\n    - { model: b, weight: 1 }\n  sticky: { parameter: user }\n';
  const e = experiment(yaml, host(), { random: () => assert.fail('a sticky request draws no random number') });
  const users = new Map<string, Set<string>>();
  for (let i = 0; i < 40; i++) {
    const user = `u${i % 8}`;
    const r = await lastValueFrom(e.model.infer(request(i, { parameters: { user } })));
    users.set(user, (users.get(user) ?? new Set()).add(String(r.parameters?.experiment_variant)));
  }
  assert.ok([...users.values()].every((v) => v.size === 1), 'each user stayed on one variant');
  assert.equal(new Set([...users.values()].map((v) => [...v][0])).size, 2, 'eight users reached both variants');
  assert.ok(e.routed.some((v) => v.variant === 'a:2' && v.version === '2'));
});

test('the mirror gets a copy after the variant admitted the request; past its bound a copy is dropped and counted; its errors are counted', async () => {
  const pending = new Subject<InferenceResponse>();
  let fail = false;
  const h = host(() => (fail ? throwError(() => new Error('shadow broke')) : pending));
  const yaml = `${SPLIT}  mirror: { model: shadow, max_inflight_requests: 2 }\n`;
  const e = experiment(yaml, h, { random: () => 0.5 });
  // The shadow never answers: the clients are answered all the same.
  for (let i = 0; i < 3; i++) assert.ok(await lastValueFrom(e.model.infer(request(i))));
  assert.deepEqual(e.mirrored, ['sent', 'sent', 'dropped']);
  const copy = h.seen.find((r) => r.model === 'shadow')!;
  assert.equal(copy.trace, undefined);
  assert.equal(copy.outputs, undefined, 'the copy asks for every output; its answer is discarded anyway');
  pending.complete(); // the two copies end: room again
  fail = true;
  await lastValueFrom(e.model.infer(request(9)));
  assert.deepEqual(e.mirrored, ['sent', 'sent', 'dropped', 'sent', 'failed']);
  // A request its variant refuses is not copied.
  const refusing = experiment(`name: e\nexperiment:\n  variants:\n    - { model: refuses }\n  mirror: { model: shadow }\n`, h);
  await assert.rejects(lastValueFrom(refusing.model.infer(request(1))), /unknown model: 'refuses'/);
  assert.deepEqual(refusing.mirrored, []);
});

test('a mirror at 0 percent copies nothing; at 50 percent, the injected source decides', async () => {
  const h = host();
  const none = experiment(`${SPLIT}  mirror: { model: shadow, percent: 0 }\n`, h, { random: () => 0 });
  await lastValueFrom(none.model.infer(request(1)));
  assert.deepEqual(none.mirrored, []);
  const points = [0.1, 0.2, 0.9, 0.6];
  const half = experiment(`${SPLIT}  mirror: { model: shadow, percent: 50 }\n`, h, { random: () => points.shift()! });
  await lastValueFrom(half.model.infer(request(1))); // variant 0.1, copy at 0.2 < 0.5
  await lastValueFrom(half.model.infer(request(2))); // variant 0.9, no copy at 0.6
  assert.deepEqual(half.mirrored, ['sent']);
});

test('unsubscribing cancels the variant; stop fails new requests and gives the sticky header back', async () => {
  const held = new Subject<InferenceResponse>();
  let unsubscribed = 0;
  const h: Host = {
    seen: [],
    infer: () => new Observable<InferenceResponse>((sub) => {
      const s = held.subscribe(sub);
      return () => { unsubscribed++; s.unsubscribe(); };
    }),
  };
  const headers = createRoutingHeaders();
  const e = experiment('name: e\nexperiment:\n  variants:\n    - { model: a }\n  sticky: { header: X-User }\n', h, { headers });
  assert.deepEqual(headers.names(), ['x-user']);
  const sub = e.model.infer(request(1)).subscribe({ error: () => undefined });
  assert.equal(e.model.inflightCount(), 1);
  sub.unsubscribe();
  assert.equal(unsubscribed, 1);
  assert.equal(e.model.inflightCount(), 0);
  assert.equal(e.model.statistics().inference_stats.fail.count, 1, 'counted as cancelled');
  await e.stop();
  assert.deepEqual(headers.names(), []);
  await assert.rejects(lastValueFrom(e.model.infer(request(2)).pipe(toArray())), /unloading|not ready|UNAVAILABLE/i);
});

test('every request of a sequence reaches the variant its first did, whatever the weights draw', async () => {
  let draws = 0;
  const e = experiment(SPLIT, host(), { random: () => (draws++, 0) });
  const variantsOf = new Map<bigint, Set<string>>();
  for (let step = 0; step < 3; step++) {
    for (let id = 1n; id <= 12n; id++) {
      const r = await lastValueFrom(e.model.infer(request(1, { sequence: { id, start: step === 0, end: step === 2 } })));
      variantsOf.set(id, (variantsOf.get(id) ?? new Set()).add(String(r.parameters?.experiment_variant)));
    }
  }
  assert.equal(draws, 0, 'a sequence is routed by its correlation id, not drawn');
  assert.ok([...variantsOf.values()].every((v) => v.size === 1));
  assert.equal(new Set([...variantsOf.values()].map((v) => [...v][0])).size, 2, 'twelve sequences reach both variants');
});
