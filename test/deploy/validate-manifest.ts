/**
 * A manifest checked against its schema, offline: the Kubernetes kinds with the kubernetes-models
 * packages (Kubernetes' own OpenAPI schemas, and prometheus-operator's CRD schemas for the
 * ServiceMonitor), KServe's kinds with test/deploy/kserve-schemas.ts plus the Kubernetes schemas
 * for the containers, volumes and pod fields they embed. The schemas check types, formats,
 * patterns, enums and required fields; like them, this does not refuse unknown Kubernetes fields.
 */
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Container, PodSpec, Service, Volume } from 'kubernetes-models/v1';
import type { Doc } from './deploy-files.js';
import { MODEL_SPEC_FIELDS, PREDICTOR_FIELDS, kserveValidator } from './kserve-schemas.js';

type ModelClass = new (data: Doc) => { validate(): void };

const KUBERNETES: Record<string, ModelClass> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1 ServiceMonitor': ServiceMonitor,
};

/** Validation errors (`data/spec/... must be ...`), each prefixed with where it is; none when valid. */
function check(what: string, Cls: ModelClass, data: Doc): string[] {
  try {
    new Cls(data).validate();
    return [];
  } catch (e) {
    return [`${what}: ${(e as Error).message}`];
  }
}

const omit = (o: Doc, keys: readonly string[]) => Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => !keys.includes(k)));

/** Every schema error of one object; throws for a kind no schema here covers (a new kind needs one). */
export function validateManifest(doc: Doc): string[] {
  const id = `${doc?.apiVersion} ${doc?.kind}`;
  const name = `${doc?.kind}/${doc?.metadata?.name}`;
  const Kube = KUBERNETES[id];
  if (Kube) return check(name, Kube, doc);
  const kserve = kserveValidator(doc?.apiVersion, doc?.kind);
  if (!kserve) throw new Error(`no schema for ${id} (${name}): add one to test/deploy/validate-manifest.ts`);
  const errors = kserve(doc) ? [] : (kserve.errors ?? []).map((e) => `${name}: data${e.instancePath} ${e.message}${e.params && 'additionalProperty' in e.params ? ` '${e.params.additionalProperty}'` : ''}`);
  if (doc.kind === 'InferenceService') {
    const predictor = doc.spec?.predictor ?? {};
    // The predictor is a PodSpec inline (containers optional in KServe), its model a Container (name optional).
    errors.push(...check(`${name} predictor`, PodSpec, { containers: [], ...omit(predictor, PREDICTOR_FIELDS) }));
    if (predictor.model) errors.push(...check(`${name} predictor.model`, Container, { name: 'kserve-container', ...omit(predictor.model, MODEL_SPEC_FIELDS) }));
  } else {
    for (const [i, c] of (doc.spec?.containers ?? []).entries()) errors.push(...check(`${name} containers[${i}]`, Container, c));
    for (const [i, v] of (doc.spec?.volumes ?? []).entries()) errors.push(...check(`${name} volumes[${i}]`, Volume, v));
  }
  return errors;
}
