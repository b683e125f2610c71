import type { ModelConfig } from '../config/index.js';
import type { Consumer, PipelineContext, Producer, Resolve, StepInfo } from './pipeline-context.js';
import { q } from './pipeline-context.js';
import type { ProblemSink } from './pipeline-problem.js';

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Resolve every step model once and index producers and consumers of each tensor. */
export function createPipelineContext(config: ModelConfig, resolve: Resolve, sink: ProblemSink): PipelineContext {
  const rawSteps = config.ensemble_scheduling?.step ?? [];
  const modelCounts = new Map<string, number>();
  for (const s of rawSteps) modelCounts.set(s.model_name, (modelCounts.get(s.model_name) ?? 0) + 1);

  const steps: StepInfo[] = rawSteps.map((s, index) => {
    const version = s.model_version ?? -1;
    const name = (modelCounts.get(s.model_name) ?? 0) > 1 ? `${s.model_name}#${index}` : s.model_name;
    return {
      index,
      name,
      model: s.model_name,
      version,
      config: s.model_name === config.name ? undefined : resolve(s.model_name, version),
      inputMap: Object.entries(s.input_map ?? {}),
      outputMap: Object.entries(s.output_map ?? {}),
      path: `ensemble_scheduling.step[${index}]`,
      label: name === s.model_name ? `step ${q(name)} (step[${index}])` : `step ${q(name)} (step[${index}], model ${q(s.model_name)})`,
    };
  });

  const producers = new Map<string, Producer[]>();
  const consumers = new Map<string, Consumer[]>();
  config.input.forEach((t, index) => push(producers, t.name, { kind: 'input', index }));
  config.output.forEach((t, index) => push(consumers, t.name, { kind: 'output', index }));
  for (const s of steps) {
    for (const [key, tensor] of s.inputMap) push(consumers, tensor, { kind: 'step', step: s.index, key });
    for (const [key, tensor] of s.outputMap) push(producers, tensor, { kind: 'step', step: s.index, key });
  }
  return { config, name: config.name, steps, producers, consumers, sink };
}
