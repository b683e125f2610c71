/**
 * Scripts' custom metric families (MetricFamily in tributary/bls) on /metrics. Each family is a
 * prom-client metric of its kind whose samples are read from the server's store at scrape time,
 * so a script's update costs the store an addition and nothing here; families come and go with
 * the models that declare them. A histogram's series may each have their own buckets (Triton's
 * metrics take theirs at creation), which prom-client's own Histogram cannot hold, so its samples
 * (_bucket with le, _sum, _count) are written out here.
 */
import { Counter, Gauge, Histogram, type MetricObjectWithValues, type MetricValueWithName, type Registry } from 'prom-client';
import type { CustomFamily, CustomMetricsView } from '../server/index.js';

type Sample = MetricValueWithName<string>;

function samples(f: CustomFamily): Sample[] {
  const out: Sample[] = [];
  for (const s of f.series()) {
    if (f.kind !== 'histogram') {
      out.push({ value: s.value, labels: { ...s.labels } });
      continue;
    }
    const bounds = s.buckets ?? [];
    const per = s.perBucket ?? [];
    let cumulative = 0;
    for (let i = 0; i <= bounds.length; i++) {
      cumulative += per[i] ?? 0;
      out.push({ metricName: `${f.name}_bucket`, labels: { ...s.labels, le: i < bounds.length ? bounds[i]! : '+Inf' }, value: cumulative });
    }
    out.push({ metricName: `${f.name}_sum`, labels: { ...s.labels }, value: s.sum ?? 0 });
    out.push({ metricName: `${f.name}_count`, labels: { ...s.labels }, value: s.count ?? 0 });
  }
  return out;
}

/** prom-client rejects an empty help text; Triton's description may be empty. */
const help = (f: CustomFamily) => f.description || `custom metric ${f.name}`;

class CustomCounter extends Counter<string> {
  readonly #family: CustomFamily;
  constructor(family: CustomFamily, registry: Registry) {
    super({ name: family.name, help: help(family), registers: [registry] });
    this.#family = family;
  }

  override async get(): Promise<MetricObjectWithValues<Sample>> {
    return { ...(await super.get()), values: samples(this.#family) };
  }
}

class CustomGauge extends Gauge<string> {
  readonly #family: CustomFamily;
  constructor(family: CustomFamily, registry: Registry) {
    super({ name: family.name, help: help(family), registers: [registry] });
    this.#family = family;
  }

  override async get(): Promise<MetricObjectWithValues<Sample>> {
    return { ...(await super.get()), values: samples(this.#family) };
  }
}

/**
 * prom-client's own Histogram formats from its private buckets, whatever get() says; a histogram
 * family is therefore a metric whose get() answers with histogram samples and the histogram type
 * (taken from a detached prom-client Histogram: the type is declared as an enum the library does
 * not export at run time).
 */
let histogramType: Promise<MetricObjectWithValues<Sample>['type']> | undefined;
const typeOfHistograms = () => (histogramType ??= new Histogram({ name: 'histogram', help: 'type', registers: [] }).get().then((m) => m.type));

class CustomHistogram extends Gauge<string> {
  readonly #family: CustomFamily;
  constructor(family: CustomFamily, registry: Registry) {
    super({ name: family.name, help: help(family), registers: [registry] });
    this.#family = family;
  }

  override async get(): Promise<MetricObjectWithValues<Sample>> {
    return { ...(await super.get()), type: await typeOfHistograms(), values: samples(this.#family) };
  }
}

/** Registers the store's families and follows it; returns the function that stops following. */
export function registerCustomMetrics(registry: Registry, view: CustomMetricsView): () => void {
  const shown = new Map<string, CustomFamily>();
  const add = (f: CustomFamily) => {
    // The store keeps scripts off the server's names; a name already here is left as it is.
    if (registry.getSingleMetric(f.name)) return;
    shown.set(f.name, f);
    if (f.kind === 'counter') new CustomCounter(f, registry);
    else if (f.kind === 'gauge') new CustomGauge(f, registry);
    else new CustomHistogram(f, registry);
  };
  const remove = (f: CustomFamily) => {
    if (shown.get(f.name) !== f) return;
    shown.delete(f.name);
    registry.removeSingleMetric(f.name);
  };
  for (const f of view.families()) add(f);
  const stop = view.watch((f, present) => (present ? add(f) : remove(f)));
  return () => {
    stop();
    for (const name of shown.keys()) registry.removeSingleMetric(name);
    shown.clear();
  };
}
