/** Compile a YAML pipeline text against fixture models, with positions, as a load would. */
import { parseConfigText, positionOf, type ModelConfig } from '../../src/config/index.js';
import { compilePipeline, type PipelinePlan, type PipelineProblem, type ResolveLabels } from '../../src/pipeline/index.js';
import { model, resolver } from './pipeline-fixtures.js';

const FILE = 'routed/config.yaml';

export function compileYaml(text: string, ...models: ModelConfig[]): { plan?: PipelinePlan; problems: PipelineProblem[]; parseProblems: string[] } {
  return compileYamlWithLabels(text, undefined, ...models);
}

/** As compileYaml, with the output labels of loaded models (for conditions such as top1). */
export function compileYamlWithLabels(text: string, labels: ResolveLabels | undefined, ...models: ModelConfig[]): ReturnType<typeof compileYaml> {
  const parsed = parseConfigText(text, FILE, 'yaml');
  const { plan, problems } = compilePipeline(parsed.config, resolver(...models), (path, offset) => positionOf(parsed, path, offset), models.map((m) => m.name), labels);
  return { ...(plan ? { plan } : {}), problems, parseProblems: parsed.problems.map((p) => `${p.line}:${p.col}: ${p.message}`) };
}

/** `line:col: message` of each error, for assertions that name the position. */
export const errorsAt = (ps: readonly PipelineProblem[]): string[] =>
  ps.filter((p) => p.severity === 'error').map((p) => `${p.line}:${p.col}: ${p.message}`);

/** Models of the routed text example: language id, sentiment, a scorer. */
export const langid = model('langid', { TEXT: ['TYPE_STRING', [1]] }, { LANGUAGE: ['TYPE_STRING', [1]], PROB: ['TYPE_FP32', [1]] });
export const sentiment = model('sentiment', { TEXT: ['TYPE_STRING', [1]] }, { LABEL: ['TYPE_STRING', [1]], SCORE: ['TYPE_FP32', [1]] });
export const recog = model('recog', { CROP: ['TYPE_FP32', [1, 8]] }, { TEXT: ['TYPE_STRING', [1]] });
export const refine = model('refine', { S: ['TYPE_FP32', [4]] }, { S: ['TYPE_FP32', [4]] });

/** `line:col` (1-based) of the first `needle` in `text` at or after `from`'s first occurrence. */
export function at(text: string, needle: string, from = ''): string {
  const i = text.indexOf(needle, from ? text.indexOf(from) : 0);
  if (i < 0) throw new Error(`fixture: ${needle} not in text`);
  const before = text.slice(0, i).split('\n');
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

/** A YAML pipeline over one BYTES input TEXT, with the given outputs and steps (indented YAML). */
export function routedYaml(steps: string, outputs = '  - { name: LABEL, data_type: BYTES, dims: [1] }\n  - { name: SCORE, data_type: FP32, dims: [1], optional: true }'): string {
  return `name: routed\ninput:\n  - { name: TEXT, data_type: BYTES, dims: [1] }\noutput:\n${outputs}\nsteps:\n${steps}`;
}
