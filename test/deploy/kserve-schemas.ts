/**
 * KServe's ServingRuntime (serving.kserve.io/v1alpha1) and InferenceService
 * (serving.kserve.io/v1beta1) as JSON schemas, for validating deploy/kserve offline. No npm
 * package ships KServe's schemas (the kubernetes-models family has none), so these are written
 * from KServe's API types (ServingRuntimeSpec, SupportedModelFormat, PredictorSpec, ModelSpec,
 * ComponentExtensionSpec): the KServe-specific fields with their types, required fields and, where
 * the whole field list is known, no others. The Kubernetes parts they embed (containers, volumes,
 * the predictor's pod fields) are checked with the Kubernetes schemas by the caller.
 */
import { Ajv, type ValidateFunction } from 'ajv';

const str = { type: 'string' };
const bool = { type: 'boolean' };
const int = { type: 'integer' };
const stringMap = { type: 'object', additionalProperties: str };
const objects = { type: 'array', items: { type: 'object' } };
// KServe's constants.InferenceServiceProtocol values.
const protocol = { enum: ['v1', 'v2', 'grpc-v1', 'grpc-v2'] };
const metadata = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 }, namespace: str, labels: stringMap, annotations: stringMap },
};

const servingRuntime = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'serving.kserve.io/v1alpha1' },
    kind: { enum: ['ServingRuntime', 'ClusterServingRuntime'] },
    metadata,
    spec: {
      type: 'object',
      required: ['containers'],
      additionalProperties: false,
      properties: {
        supportedModelFormats: {
          type: 'array',
          items: {
            type: 'object', required: ['name'], additionalProperties: false,
            properties: { name: str, version: str, autoSelect: bool, priority: { type: 'integer', minimum: 1 } },
          },
        },
        multiModel: bool,
        disabled: bool,
        protocolVersions: { type: 'array', items: protocol },
        workerSpec: { type: 'object' },
        // ServingRuntimePodSpec, inline.
        containers: { ...objects, minItems: 1 },
        volumes: objects,
        nodeSelector: stringMap,
        affinity: { type: 'object' },
        tolerations: objects,
        labels: stringMap,
        annotations: stringMap,
        imagePullSecrets: objects,
        hostIPC: bool,
        // ModelMesh fields.
        grpcEndpoint: str,
        grpcDataEndpoint: str,
        httpDataEndpoint: str,
        replicas: { type: 'integer', minimum: 0, maximum: 65535 },
        storageHelper: { type: 'object', additionalProperties: false, properties: { disabled: bool } },
        builtInAdapter: {
          type: 'object', additionalProperties: false,
          properties: { serverType: str, runtimeManagementPort: int, memBufferBytes: int, modelLoadingTimeoutMillis: int, env: objects },
        },
      },
    },
  },
};

/** ModelSpec's own fields (the rest of it is a Kubernetes Container). */
export const MODEL_SPEC_FIELDS = ['modelFormat', 'runtime', 'storageUri', 'storage', 'runtimeVersion', 'protocolVersion'];
/** PredictorSpec's and ComponentExtensionSpec's own fields (the rest of the predictor is a PodSpec). */
export const PREDICTOR_FIELDS = [
  'model', 'sklearn', 'xgboost', 'tensorflow', 'pytorch', 'triton', 'onnx', 'huggingface', 'pmml', 'lightgbm', 'paddle', 'workerSpec',
  'minReplicas', 'maxReplicas', 'scaleTarget', 'scaleMetric', 'scaleMetricType', 'autoScaling', 'containerConcurrency', 'timeout',
  'canaryTrafficPercent', 'logger', 'batcher', 'labels', 'annotations', 'deploymentStrategy',
];

const inferenceService = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'serving.kserve.io/v1beta1' },
    kind: { const: 'InferenceService' },
    metadata,
    spec: {
      type: 'object',
      required: ['predictor'],
      properties: {
        predictor: {
          type: 'object',
          properties: {
            model: {
              type: 'object',
              required: ['modelFormat'],
              properties: {
                modelFormat: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: str, version: str } },
                runtime: str,
                storageUri: str,
                runtimeVersion: str,
                protocolVersion: protocol,
                storage: { type: 'object' },
              },
            },
            minReplicas: { type: 'integer', minimum: 0 },
            maxReplicas: { type: 'integer', minimum: 0 },
            scaleTarget: int,
            scaleMetric: { enum: ['cpu', 'memory', 'concurrency', 'rps'] },
            containerConcurrency: int,
            timeout: int,
            canaryTrafficPercent: int,
            labels: stringMap,
            annotations: stringMap,
          },
        },
        transformer: { type: 'object' },
        explainer: { type: 'object' },
      },
    },
  },
};

let compiled: Record<string, ValidateFunction> | undefined;

/** The KServe schema's validator for a kind, or undefined for a kind that is not KServe's. */
export function kserveValidator(apiVersion: string, kind: string): ValidateFunction | undefined {
  compiled ??= (() => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    return {
      'serving.kserve.io/v1alpha1 ServingRuntime': ajv.compile(servingRuntime),
      'serving.kserve.io/v1alpha1 ClusterServingRuntime': ajv.compile(servingRuntime),
      'serving.kserve.io/v1beta1 InferenceService': ajv.compile(inferenceService),
    };
  })();
  return compiled[`${apiVersion} ${kind}`];
}
