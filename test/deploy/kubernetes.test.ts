/**
 * deploy/kubernetes (the Kustomize base) and deploy/kserve: every manifest parses; probes, ports
 * and the serve command agree with the server (its flag table's defaults, its real health routes
 * answered by a real server); the termination grace outlasts preStop + drain + flush; pods run as
 * non-root; selectors meet their targets. `kubectl kustomize` renders the base where kubectl is
 * installed (it needs no cluster).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { FLUSH_GRACE_MS } from '../../src/cli/stop-on-signal.js';
import { startHttpServer, type HttpServerHandle } from '../../src/frontend/http/index.js';
import { createServer, type LocalServer } from '../../src/server/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { DEFAULT_EXIT_TIMEOUT_SECS, ROOT, defaultPort, findKind, hasTool, manifests, serveArgs, type Doc } from './deploy-files.js';

// The servers here load a model and drain: info lines only, nothing to show.
quietLog([]);
const all = manifests();
const KUBE = join(ROOT, 'deploy/kubernetes');
const deployment: Doc = findKind(all, 'Deployment', 'tributary')[0];
const pod: Doc = deployment.spec.template.spec;
const server: Doc = pod.containers.find((c: Doc) => c.name === 'tributary');

let repo: TempRepo;
let local: LocalServer;
let http: HttpServerHandle;
before(async () => {
  repo = tempRepo({
    'echo/config.pbtxt': `name: "echo"
backend: "identity"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
`,
    'echo/1/.keep': '',
  });
  local = await createServer({ modelRepository: repo.dir });
  http = await startHttpServer(local, { port: 0, host: '127.0.0.1' });
});
after(async () => { await http?.close(); await local?.close(); repo?.remove(); });

/** The container port a probe or Service names (by name or number). */
function portOf(container: Doc, port: string | number): number {
  if (typeof port === 'number') return port;
  const p = container.ports.find((x: Doc) => x.name === port);
  assert.ok(p, `container ${container.name} has no port named ${port}`);
  return p.containerPort;
}

async function status(path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${http.port}${path}`)).status;
}

test('every manifest under deploy/ parses and names its apiVersion, kind and name', () => {
  assert.ok(all.length >= 10, `only ${all.length} documents found`);
  for (const { file, doc } of all) {
    assert.ok(doc.apiVersion && doc.kind, `${file}: a document without apiVersion/kind`);
    if (doc.kind !== 'Kustomization') assert.ok(doc.metadata?.name, `${file}: ${doc.kind} without metadata.name`);
  }
});

test('the Kustomize base lists every manifest of deploy/kubernetes', () => {
  const [k] = findKind(all, 'Kustomization');
  const files = readdirSync(KUBE).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort();
  assert.deepEqual([...k.resources].sort(), files);
});

test('the Deployment exposes serve\'s default ports and runs serve with flags it accepts', () => {
  assert.equal(portOf(server, 'http'), defaultPort('http-port'));
  assert.equal(portOf(server, 'grpc'), defaultPort('grpc-port'));
  assert.equal(portOf(server, 'metrics'), defaultPort('metrics-port'));
  const flags = serveArgs(server.args);
  assert.deepEqual(flags['model-repository'], ['/models']);
  const mount = server.volumeMounts.find((m: Doc) => m.mountPath === '/models');
  assert.ok(mount && pod.volumes.some((v: Doc) => v.name === mount.name), 'the repository comes from a pod volume');
  const init = pod.initContainers.find((c: Doc) => c.volumeMounts.some((m: Doc) => m.name === mount.name));
  assert.ok(init, 'an init container fills the repository volume');
});

test('probes hit the server\'s real health routes on the HTTP port (a real server answers them)', async () => {
  const probes = { livenessProbe: '/v2/health/live', readinessProbe: '/v2/health/ready', startupProbe: '/v2/health/live' };
  for (const [probe, path] of Object.entries(probes)) {
    assert.equal(server[probe].httpGet.path, path, probe);
    assert.equal(portOf(server, server[probe].httpGet.port), defaultPort('http-port'), `${probe} port`);
    assert.equal(await status(path), 200, `${path} on a ready server`);
  }
  assert.equal(await status('/v2/health/nope'), 404, 'an unknown path is not answered 200');
});

test('the termination grace outlasts the preStop sleep, the drain (--exit-timeout-secs) and the final flush', () => {
  const flags = serveArgs(server.args);
  const drain = flags['exit-timeout-secs'] === undefined ? DEFAULT_EXIT_TIMEOUT_SECS : Number(flags['exit-timeout-secs']);
  const sleep = server.lifecycle.preStop.exec.command;
  assert.equal(sleep[0], 'sleep');
  const needed = Number(sleep[1]) + drain + FLUSH_GRACE_MS / 1000;
  assert.ok(pod.terminationGracePeriodSeconds > needed, `grace ${pod.terminationGracePeriodSeconds} s <= ${needed} s`);
});

test('pods run as a non-root user without privilege escalation', () => {
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.notEqual(pod.securityContext.runAsUser, 0);
  for (const c of [...pod.initContainers, ...pod.containers]) {
    assert.equal(c.securityContext.allowPrivilegeEscalation, false, c.name);
    assert.ok(c.resources?.requests?.memory && c.resources?.limits?.memory, `${c.name}: memory request and limit`);
  }
});

test('Services, HPA, PDB and ServiceMonitor reach the Deployment\'s pods and ports', () => {
  const labels = deployment.spec.template.metadata.labels;
  const matches = (sel: Record<string, string>, l: Record<string, string>) => Object.entries(sel).every(([k, v]) => l[k] === v);
  const ports = new Set<number>();
  for (const svc of findKind(all, 'Service')) {
    assert.ok(matches(svc.spec.selector, labels), `${svc.metadata.name} selects the pods`);
    for (const p of svc.spec.ports) { assert.equal(portOf(server, p.targetPort), p.port); ports.add(p.port); }
  }
  assert.deepEqual([...ports].sort(), [defaultPort('http-port'), defaultPort('grpc-port'), defaultPort('metrics-port')]);
  const [hpa] = findKind(all, 'HorizontalPodAutoscaler');
  assert.equal(hpa.spec.scaleTargetRef.name, deployment.metadata.name);
  assert.ok(hpa.spec.metrics.some((m: Doc) => m.resource?.name === 'cpu'));
  const [pdb] = findKind(all, 'PodDisruptionBudget');
  assert.ok(matches(pdb.spec.selector.matchLabels, labels));
  const [sm] = findKind(all, 'ServiceMonitor');
  const scraped = findKind(all, 'Service').filter((s) => matches(sm.spec.selector.matchLabels, s.metadata.labels ?? {}));
  assert.equal(scraped.length, 1, 'the ServiceMonitor selects the metrics Service only');
  assert.equal(scraped[0].spec.ports.find((p: Doc) => p.name === sm.spec.endpoints[0].port).port, defaultPort('metrics-port'));
});

test('the KServe runtime serves v2 over HTTP and gRPC on KServe\'s ports, from /mnt/models', async () => {
  const [rt] = findKind(all, 'ServingRuntime');
  assert.equal(rt.apiVersion, 'serving.kserve.io/v1alpha1');
  assert.deepEqual(rt.spec.protocolVersions, ['v2', 'grpc-v2']);
  assert.deepEqual(rt.spec.supportedModelFormats.map((f: Doc) => f.name).sort(), ['onnx', 'triton']);
  const c = rt.spec.containers[0];
  assert.equal(c.name, 'kserve-container');
  const flags = serveArgs(c.args);
  assert.deepEqual(flags['model-store'], ['/mnt/models']);
  assert.equal(Number(flags['http-port']), c.ports[0].containerPort);
  assert.equal(flags['grpc-port'], '9000');
  assert.equal(rt.spec.annotations['prometheus.kserve.io/port'], String(defaultPort('metrics-port')));
  for (const probe of ['readinessProbe', 'livenessProbe']) {
    assert.equal(c[probe].httpGet.port, Number(flags['http-port']));
    assert.equal(await status(c[probe].httpGet.path), 200, probe);
  }
  const services = findKind(all, 'InferenceService');
  assert.equal(services.length, 2);
  for (const isvc of services) {
    assert.equal(isvc.spec.predictor.model.runtime, rt.metadata.name);
    const format = isvc.spec.predictor.model.modelFormat.name;
    assert.ok(rt.spec.supportedModelFormats.some((f: Doc) => f.name === format), `${isvc.metadata.name}: format ${format}`);
    assert.ok(isvc.spec.predictor.terminationGracePeriodSeconds > Number(flags['exit-timeout-secs']) + FLUSH_GRACE_MS / 1000);
    const grpc = isvc.spec.predictor.model.ports?.[0];
    if (grpc) assert.equal(grpc.containerPort, Number(flags['grpc-port']));
  }
});

const kubectl = hasTool('kubectl', ['version', '--client']);
test('kubectl kustomize renders the base', { skip: kubectl ? false : 'kubectl is not installed: the Kustomize base was only parsed, not rendered' }, () => {
  const r = spawnSync('kubectl', ['kustomize', KUBE], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const kinds = parseAllDocuments(r.stdout).map((d) => d.toJS().kind).sort();
  assert.deepEqual(kinds, ['Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service', 'Service', 'Service', 'ServiceMonitor']);
});
