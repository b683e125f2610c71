/**
 * An experiment's config checked against its variants and mirror, once, at load (and by
 * `tributary validate`): every variant is a known model, all share one interface, the mirror takes
 * the variants' requests. Gives the frozen routing plan and the experiment's config with that
 * interface filled in, or every problem found, each at file:line:col of the experiment's config.
 */
import { closest, type ConfigProblem, type ModelConfig } from '../config/index.js';
import { interfaceDifferences, interfaceOf, mirrorDifferences, type ModelInterface } from './common-interface.js';
import type { ExperimentPlan, PlanSticky, PlanVariant } from './experiment-plan.js';

/** Config of a known model (version -1 = the one it serves by default); undefined when unknown or not loaded. */
export type ResolveConfig = (model: string, version: number) => ModelConfig | undefined;
export type PositionAt = (path: string) => { file: string; line: number; col: number };

export interface CompiledExperiment {
  plan?: ExperimentPlan;
  /** The experiment's config as served: platform 'experiment' and the variants' common interface. */
  config?: ModelConfig;
  problems: ConfigProblem[];
}

export function compileExperiment(config: ModelConfig, resolve: ResolveConfig, at: PositionAt, known: readonly string[] = []): CompiledExperiment {
  const e = config.experiment;
  const problems: ConfigProblem[] = [];
  const error = (path: string, message: string) => problems.push({ ...at(path), path, message: `model '${config.name}': ${message}`, severity: 'error' });
  if (!e) {
    error('', 'has no experiment block');
    return { problems };
  }
  const lookup = (path: string, what: string, model: string, version: string | undefined): ModelConfig | undefined => {
    const c = resolve(model, version ? Number(version) : -1);
    if (c) return c;
    const near = closest(model, known.filter((n) => n !== config.name && n !== model));
    error(path, `${what}: unknown model '${model}'${version ? ` version ${version}` : ''}; it is not in the model repository (or not loaded)${near ? `; did you mean '${near}'?` : ''}`);
    return undefined;
  };

  let first: { name: string; iface: ModelInterface } | undefined;
  let smallest = Infinity;
  e.variants.forEach((v, i) => {
    const where = `experiment.variants[${i}] '${v.model}'`;
    const c = lookup(`experiment.variants[${i}].model`, where, v.model, v.version);
    if (!c) return;
    const iface = interfaceOf(c);
    if (iface.max_batch_size > 0) smallest = Math.min(smallest, iface.max_batch_size);
    if (!first) {
      first = { name: `variant '${v.model}'`, iface };
      return;
    }
    for (const d of interfaceDifferences(first.iface, iface, first.name)) error(`experiment.variants[${i}].model`, `${where}: ${d}; the variants of an experiment must share one interface`);
  });
  if (!first) return { problems };
  const batching = first.iface.max_batch_size > 0;
  let maxBatch = batching ? smallest : 0;
  // A written max_batch_size may lower what the experiment takes, never raise it.
  if (config.max_batch_size > 0) {
    if (!batching || config.max_batch_size > maxBatch) error('max_batch_size', `max_batch_size ${config.max_batch_size} is more than the variants take (${maxBatch}); leave it out, or lower it`);
    else maxBatch = config.max_batch_size;
  }
  const iface: ModelInterface = { ...first.iface, max_batch_size: maxBatch };

  // An interface written in the experiment's own config documents it; it must be the variants'.
  if (config.input.length > 0 || config.output.length > 0) {
    const declared = { ...interfaceOf(config), max_batch_size: maxBatch, decoupled: iface.decoupled };
    for (const d of interfaceDifferences(iface, declared, "the variants' interface")) error(config.input.length > 0 ? 'input' : 'output', `the experiment's own interface differs from its variants': ${d}`);
  }

  const m = e.mirror;
  if (m) {
    const c = lookup('experiment.mirror.model', `experiment.mirror '${m.model}'`, m.model, m.version);
    if (c) for (const d of mirrorDifferences(iface, interfaceOf(c))) error('experiment.mirror.model', `experiment.mirror '${m.model}': ${d}; a mirror must take every request the variants take`);
  }
  if (problems.length > 0) return { problems };

  const total = e.variants.reduce((s, v) => s + v.weight, 0);
  let upTo = 0;
  const variants: PlanVariant[] = e.variants.map((v) => {
    upTo += v.weight;
    return Object.freeze({
      experiment: config.name, variant: v.version ? `${v.model}:${v.version}` : v.model,
      model: v.model, version: v.version, weight: v.weight, upTo,
    });
  });
  let sticky: PlanSticky | undefined;
  // Header names are case-insensitive; the edge reads them lower case (gRPC metadata keys are).
  if (e.sticky?.header !== undefined) sticky = { header: e.sticky.header.toLowerCase() };
  else if (e.sticky?.parameter !== undefined) sticky = { parameter: e.sticky.parameter };
  const plan: ExperimentPlan = Object.freeze({
    name: config.name, variants, total, sticky, decoupled: iface.decoupled,
    mirror: m ? Object.freeze({ model: m.model, version: m.version, percent: m.percent, maxInflight: m.max_inflight_requests }) : undefined,
  });
  const served: ModelConfig = {
    ...config, platform: 'experiment', max_batch_size: maxBatch,
    input: structuredClone([...iface.input]), output: structuredClone([...iface.output]),
    model_transaction_policy: { decoupled: iface.decoupled },
  };
  return { plan, config: served, problems };
}
