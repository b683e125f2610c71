/**
 * Every object the Kustomize base renders to, and every KServe manifest, passes its schema,
 * offline: Kubernetes' own (kubernetes-models), prometheus-operator's for the ServiceMonitor, and
 * KServe's written from its API types (no package ships them). The base is rendered as kubectl
 * renders it (test/deploy/kustomize-build.ts), an overlay's patches too; a broken field fails.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { ROOT, findKind, manifests, type Doc } from './deploy-files.js';
import { kustomizeBuild } from './kustomize-build.js';
import { validateManifest } from './validate-manifest.js';

const BASE = join(ROOT, 'deploy/kubernetes');
const kserve = () => manifests(join(ROOT, 'deploy/kserve')).map((m) => m.doc);

test('the Kustomize base renders, and every object passes its Kubernetes schema', () => {
  const objects = kustomizeBuild(BASE);
  assert.deepEqual(objects.map((o) => o.kind).sort(),
    ['Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service', 'Service', 'Service', 'ServiceMonitor']);
  for (const o of objects) {
    assert.deepEqual(validateManifest(o), [], `${o.kind}/${o.metadata.name}`);
    assert.equal(o.metadata.labels['app.kubernetes.io/part-of'], 'tributary', `${o.kind}/${o.metadata.name}: the kustomization's labels`);
  }
  const pod = findKind(objects.map((doc) => ({ file: '', doc })), 'Deployment')[0].spec.template.spec;
  assert.deepEqual([...pod.initContainers, ...pod.containers].map((c: Doc) => c.image), ['tributary:latest', 'tributary:latest']);
});

test('the KServe runtime and InferenceServices pass KServe\'s schema and the Kubernetes schemas they embed', () => {
  const docs = kserve();
  assert.deepEqual(docs.map((d) => d.kind).sort(), ['InferenceService', 'InferenceService', 'ServingRuntime']);
  for (const d of docs) assert.deepEqual(validateManifest(d), [], `${d.kind}/${d.metadata.name}`);
});

test('an overlay\'s patches (JSON 6902 and strategic merge) render as kubectl applies them, and validate', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-overlay-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The repository-from-a-volume patch docs/deploy.md shows, and more replicas and CPU.
  writeFileSync(join(dir, 'pvc.yaml'), `- op: remove
  path: /spec/template/spec/initContainers
- op: replace
  path: /spec/template/spec/volumes/0
  value: { name: model-repository, persistentVolumeClaim: { claimName: tributary-models, readOnly: true } }
`);
  writeFileSync(join(dir, 'kustomization.yaml'), `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ${relative(dir, BASE)}
patches:
  - path: pvc.yaml
    target: { kind: Deployment, name: tributary }
  - patch: |
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: tributary }
      spec:
        replicas: 4
        template:
          spec:
            containers:
              - name: tributary
                resources: { requests: { cpu: "2" } }
images:
  - name: tributary
    newName: registry.example/tributary
    newTag: "0.1.0"
`);
  const objects = kustomizeBuild(dir);
  for (const o of objects) assert.deepEqual(validateManifest(o), [], `${o.kind}/${o.metadata.name}`);
  const dep = objects.find((o) => o.kind === 'Deployment');
  const pod = dep.spec.template.spec;
  assert.equal(dep.spec.replicas, 4);
  assert.equal(pod.initContainers, undefined);
  assert.deepEqual(pod.volumes[0], { name: 'model-repository', persistentVolumeClaim: { claimName: 'tributary-models', readOnly: true } });
  const [server] = pod.containers;
  assert.equal(server.image, 'registry.example/tributary:0.1.0');
  // Merged by the container's name, maps key by key: the patch's CPU request over the base's, the rest kept.
  assert.deepEqual(server.resources.requests, { cpu: '2', memory: '1Gi' });
  assert.equal(server.readinessProbe.httpGet.path, '/v2/health/ready');

  // A patch whose path is not in the base fails the render, as kubectl's does.
  writeFileSync(join(dir, 'pvc.yaml'), `- op: replace\n  path: /spec/template/spec/sidecars/0\n  value: {}\n`);
  assert.throws(() => kustomizeBuild(dir), /JSON patch path \/spec\/template\/spec\/sidecars\/0 does not exist/);
});

test('a broken field fails validation, naming where', () => {
  const base = kustomizeBuild(BASE);
  const [runtime] = kserve().filter((d) => d.kind === 'ServingRuntime');
  const [isvc] = kserve().filter((d) => d.kind === 'InferenceService');
  const of = (kind: string, name?: string) => structuredClone(base.find((o) => o.kind === kind && (!name || o.metadata.name === name)));
  const cases: [string, Doc, (d: Doc) => void, RegExp][] = [
    ['a port by name where a number is due', of('Deployment'), (d) => { d.spec.template.spec.containers[0].ports[0].containerPort = 'http'; }, /containers\/0\/ports\/0\/containerPort must be integer/],
    ['replicas as text', of('Deployment'), (d) => { d.spec.replicas = 'two'; }, /spec\/replicas must be integer/],
    ['a probe without its path type', of('Deployment'), (d) => { d.spec.template.spec.containers[0].livenessProbe.httpGet.port = true; }, /livenessProbe\/httpGet\/port/],
    ['a Service port missing', of('Service', 'tributary'), (d) => { delete d.spec.ports[0].port; }, /ports\/0 must have required property '?port'?/],
    ['an HPA target as a percentage string', of('HorizontalPodAutoscaler'), (d) => { d.spec.metrics[0].resource.target.averageUtilization = '70%'; }, /averageUtilization must be integer/],
    ['an HPA without its target', of('HorizontalPodAutoscaler'), (d) => { delete d.spec.scaleTargetRef; }, /must have required property '?scaleTargetRef'?/],
    ['a PDB selector as a string', of('PodDisruptionBudget'), (d) => { d.spec.selector = 'app=tributary'; }, /spec\/selector must be object/],
    ['a ServiceMonitor interval Prometheus cannot parse', of('ServiceMonitor'), (d) => { d.spec.endpoints[0].interval = '15 seconds'; }, /endpoints\/0\/interval must match pattern/],
    ['a protocol KServe does not know', structuredClone(runtime), (d) => { d.spec.protocolVersions.push('v3'); }, /protocolVersions\/2 must be equal to one of the allowed values/],
    ['a model format without its name', structuredClone(runtime), (d) => { delete d.spec.supportedModelFormats[0].name; }, /supportedModelFormats\/0 must have required property '?name'?/],
    ['a misspelt runtime field', structuredClone(runtime), (d) => { d.spec.protocolVersion = ['v2']; }, /must NOT have additional properties 'protocolVersion'/],
    ['runtime container args as one string', structuredClone(runtime), (d) => { d.spec.containers[0].args = 'tributary serve'; }, /containers\[0\]: data\/args must be array/],
    ['an InferenceService without its model format', structuredClone(isvc), (d) => { delete d.spec.predictor.model.modelFormat; }, /must have required property '?modelFormat'?/],
    ['a predictor grace period as text', structuredClone(isvc), (d) => { d.spec.predictor.terminationGracePeriodSeconds = '45s'; }, /predictor: data\/terminationGracePeriodSeconds must be integer/],
    ['a predictor model port as text', structuredClone(isvc), (d) => { d.spec.predictor.model.ports = [{ containerPort: '9000' }]; }, /predictor\.model: data\/ports\/0\/containerPort must be integer/],
  ];
  for (const [what, doc, breakIt, error] of cases) {
    assert.deepEqual(validateManifest(doc), [], `${what}: valid before`);
    breakIt(doc);
    const errors = validateManifest(doc);
    assert.ok(errors.some((e) => error.test(e)), `${what}: ${errors.join('; ') || 'no error'}`);
  }
  assert.throws(() => validateManifest({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }), /no schema for v1 ConfigMap/);
});
