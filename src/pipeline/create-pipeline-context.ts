import type { ModelConfig } from '../config/index.js';
import type { Condition } from './condition/index.js';
import type { Consumer, PipelineContext, Producer, StepInfo, SwitchInfo } from './pipeline-context.js';
import type { ProblemSink } from './pipeline-problem.js';

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Index producers and consumers of each tensor over a scope's resolved nodes. */
export function createPipelineContext(config: ModelConfig, steps: readonly StepInfo[], switches: readonly SwitchInfo[],
  conditions: ReadonlyMap<string, Condition>, sink: ProblemSink, body?: 'map' | 'loop'): PipelineContext {
  const producers = new Map<string, Producer[]>();
  const consumers = new Map<string, Consumer[]>();
  config.input.forEach((t, index) => push(producers, t.name, { kind: 'input', index }));
  config.output.forEach((t, index) => push(consumers, t.name, { kind: 'output', index }));
  for (const s of steps) {
    for (const [key, tensor] of s.inputMap) push(consumers, tensor, { kind: 'step', step: s.index, key });
    for (const [key, tensor] of s.outputMap) push(producers, tensor, { kind: 'step', step: s.index, key });
  }
  return { config, name: config.name, steps, producers, consumers, switches, conditions, sink, ...(body ? { body } : {}) };
}
