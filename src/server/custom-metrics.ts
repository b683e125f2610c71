/**
 * Scripts' custom metrics (Triton's MetricFamily and Metric): one store per server. Each loaded
 * model version opens a scope on it (the backend, at load); the metrics room renders the families
 * at scrape time, each series labelled with its model and version. Values live here as plain
 * numbers, so an update from a script is a map lookup and an addition, and nothing is computed
 * until a scrape asks for it.
 *
 * A family is server-wide, as Prometheus' are: two models may share one when they declare it with
 * the same kind and description. A series belongs to one model version; the scopes of a reload
 * (the new version opens before the old one closes) share its series, so a counter runs on across
 * the reload instead of dropping to zero. When the last scope of a model version closes, its
 * series go, and a family no model uses any more goes with them.
 */
import type { CustomMetricsScope, MetricKind } from '../backend/index.js';
import { Errors } from '../errors.js';
import { checkMetricName, checkBuckets, checkLabels, CUSTOM_METRIC_LIMITS } from './custom-metric-checks.js';

export interface CustomSeries {
  /** model and version first, then the script's labels. */
  readonly labels: Readonly<Record<string, string>>;
  /** Counters and gauges. */
  readonly value: number;
  /** Histograms: upper bounds, observations per bucket (one more: +Inf), their sum and count. */
  readonly buckets?: readonly number[];
  readonly perBucket?: ArrayLike<number>;
  readonly sum?: number;
  readonly count?: number;
}

export interface CustomFamily {
  readonly name: string;
  readonly description: string;
  readonly kind: MetricKind;
  series(): Iterable<CustomSeries>;
}

/** What the metrics room reads: the families now, and word when one appears or goes. */
export interface CustomMetricsView {
  families(): Iterable<CustomFamily>;
  /** `family` appeared (`present`) or went; returns the function that stops watching. */
  watch(onChange: (family: CustomFamily, present: boolean) => void): () => void;
}

export interface CustomMetrics extends CustomMetricsView {
  scope(model: string, version: string): CustomMetricsScope;
}

interface Series extends CustomSeries {
  readonly id: number;
  readonly family: Family;
  readonly owner: Owner;
  readonly key: string;
  value: number;
  sum: number;
  count: number;
  perBucket?: Float64Array;
}

interface Family extends CustomFamily {
  readonly id: number;
  readonly members: Set<Series>;
  /** The model versions that registered it, with how many series each has in it. */
  readonly owners: Map<Owner, number>;
}

/** One model version: its scopes (a reload has two for a while), families and series. */
interface Owner {
  readonly model: string;
  readonly version: string;
  refs: number;
  readonly families: Set<Family>;
  readonly series: Set<Series>;
}

const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

export function createCustomMetrics(): CustomMetrics {
  const families = new Map<string, Family>();
  const familyById = new Map<number, Family>();
  const seriesById = new Map<number, Series>();
  const seriesByKey = new Map<string, Series>();
  const owners = new Map<string, Owner>();
  const watchers = new Set<(family: CustomFamily, present: boolean) => void>();
  let nextId = 1;

  const notify = (f: Family, present: boolean) => { for (const w of [...watchers]) w(f, present); };

  /** A histogram `h` shows as h_bucket, h_sum and h_count: no other family may take those names. */
  function clash(name: string, kind: MetricKind): string | undefined {
    for (const s of HISTOGRAM_SUFFIXES) {
      if (name.endsWith(s) && families.get(name.slice(0, -s.length))?.kind === 'histogram') return name.slice(0, -s.length);
      if (kind === 'histogram' && families.has(name + s)) return name + s;
    }
    return undefined;
  }

  function registerFamily(owner: Owner, name: unknown, description: unknown, kind: unknown): number {
    const model = owner.model;
    checkMetricName(model, name);
    if (typeof description !== 'string') throw Errors.scriptMetricInvalid(model, `metric family '${name}': description must be a string`);
    if (description.length > CUSTOM_METRIC_LIMITS.descriptionChars) {
      throw Errors.scriptMetricLimit(model, `metric family '${name}': description of ${description.length} characters`, CUSTOM_METRIC_LIMITS.descriptionChars);
    }
    if (kind !== 'counter' && kind !== 'gauge' && kind !== 'histogram') {
      throw Errors.scriptMetricInvalid(model, `metric family '${name}': kind must be "counter", "gauge" or "histogram", got ${JSON.stringify(kind) ?? String(kind)}`);
    }
    let f = families.get(name);
    if (f) {
      if (f.kind !== kind || f.description !== description) {
        const by = [...new Set([...f.owners.keys()].map((o) => `'${o.model}'`))].sort().join(', ');
        throw Errors.scriptMetricInvalid(model, `metric family '${name}' is already registered (by model ${by}) as a ${f.kind} with description ${JSON.stringify(f.description)}; a family has one kind and description, whichever model declares it`);
      }
    } else {
      const other = clash(name, kind);
      if (other !== undefined) throw Errors.scriptMetricInvalid(model, `metric family '${name}' would collide with family '${other}' on /metrics (a histogram h shows as h_bucket, h_sum and h_count); choose another name`);
    }
    if (f && owner.families.has(f)) return f.id;
    if (owner.families.size >= CUSTOM_METRIC_LIMITS.familiesPerModel) {
      throw Errors.scriptMetricLimit(model, `metric family '${name}' would be this model's ${owner.families.size + 1}th`, CUSTOM_METRIC_LIMITS.familiesPerModel);
    }
    const created = !f;
    if (!f) {
      const members = new Set<Series>();
      f = { id: nextId++, name, description, kind, members, owners: new Map(), series: () => members.values() };
      families.set(name, f);
      familyById.set(f.id, f);
    }
    f.owners.set(owner, 0);
    owner.families.add(f);
    if (created) notify(f, true);
    return f.id;
  }

  function registerSeries(owner: Owner, familyId: number, labels: unknown, buckets: unknown): number {
    const model = owner.model;
    const f = familyById.get(familyId);
    if (!f || !owner.families.has(f)) throw Errors.scriptMetricInvalid(model, `no metric family ${familyId} registered by this model`);
    const own = checkLabels(model, f.name, labels);
    let bounds: number[] | undefined;
    if (f.kind === 'histogram') {
      // Triton's words (core metric_family.cc), then ours.
      if (buckets === undefined || buckets === null) throw Errors.scriptMetricInvalid(model, `Bucket boundaries not found in Metric args.; histogram family '${f.name}' needs buckets: [upper bounds, increasing]`);
      bounds = checkBuckets(model, f.name, buckets);
    } else if (buckets !== undefined && buckets !== null) {
      throw Errors.scriptMetricInvalid(model, `Unexpected args found in ${f.kind} Metric constructor.; only a histogram family's metrics take buckets ('${f.name}' is a ${f.kind})`);
    }
    const all: Record<string, string> = { model, version: owner.version, ...own };
    const key = `${f.id}\0${model}\0${owner.version}\0${Object.keys(own).sort().map((k) => `${k}\0${own[k]}`).join('\0')}`;
    const found = seriesByKey.get(key);
    if (found) {
      if (bounds && found.buckets!.join(',') !== bounds.join(',')) {
        throw Errors.scriptMetricInvalid(model, `metric family '${f.name}': a metric with these labels already has buckets [${found.buckets!.join(', ')}]; one label set has one set of buckets`);
      }
      return found.id;
    }
    const n = f.owners.get(owner) ?? 0;
    if (n >= CUSTOM_METRIC_LIMITS.seriesPerFamily) {
      throw Errors.scriptMetricLimit(model, `metric family '${f.name}': a label set past this model's ${n} in the family`, CUSTOM_METRIC_LIMITS.seriesPerFamily);
    }
    const s: Series = {
      id: nextId++, family: f, owner, key, labels: all, value: 0, sum: 0, count: 0,
      ...(bounds ? { buckets: bounds, perBucket: new Float64Array(bounds.length + 1) } : {}),
    };
    seriesById.set(s.id, s);
    seriesByKey.set(key, s);
    f.members.add(s);
    f.owners.set(owner, n + 1);
    owner.series.add(s);
    return s.id;
  }

  /** The series `id` when `owner` holds it: ids from another model's script are not honoured. */
  const held = (owner: Owner, id: number, kind: MetricKind): Series | undefined => {
    const s = seriesById.get(id);
    return s && s.owner === owner && s.family.kind === kind ? s : undefined;
  };

  function release(owner: Owner): void {
    if (--owner.refs > 0) return;
    owners.delete(`${owner.model}\0${owner.version}`);
    for (const s of owner.series) {
      seriesById.delete(s.id);
      seriesByKey.delete(s.key);
      s.family.members.delete(s);
    }
    for (const f of owner.families) {
      f.owners.delete(owner);
      if (f.owners.size === 0) {
        families.delete(f.name);
        familyById.delete(f.id);
        notify(f, false);
      }
    }
  }

  return {
    families: () => families.values(),
    watch(onChange) {
      watchers.add(onChange);
      return () => { watchers.delete(onChange); };
    },
    scope(model, version) {
      const k = `${model}\0${version}`;
      let owner = owners.get(k);
      if (!owner) owners.set(k, owner = { model, version, refs: 0, families: new Set(), series: new Set() });
      owner.refs++;
      const o = owner;
      let closed = false;
      return {
        family: (name, description, kind) => {
          if (closed) throw Errors.scriptMetricInvalid(model, 'the model is unloaded; its metrics are gone');
          return registerFamily(o, name, description, kind);
        },
        metric: (familyId, labels, buckets) => {
          if (closed) throw Errors.scriptMetricInvalid(model, 'the model is unloaded; its metrics are gone');
          return registerSeries(o, familyId, labels, buckets);
        },
        add(id, delta) {
          const s = held(o, id, 'counter') ?? held(o, id, 'gauge');
          if (s && Number.isFinite(delta) && (delta >= 0 || s.family.kind === 'gauge')) s.value += delta;
        },
        set(id, value) {
          const s = held(o, id, 'gauge');
          if (s && Number.isFinite(value)) s.value = value;
        },
        observe(id, sum, count, perBucket) {
          const s = held(o, id, 'histogram');
          const b = s?.perBucket;
          if (!s || !b || perBucket.length !== b.length || !Number.isFinite(sum) || !Number.isInteger(count) || count < 0) return;
          let total = 0;
          for (let i = 0; i < b.length; i++) {
            const c = perBucket[i];
            if (!Number.isInteger(c) || c! < 0) return;
            total += c!;
          }
          if (total !== count) return;
          for (let i = 0; i < b.length; i++) b[i] = b[i]! + perBucket[i]!;
          s.sum += sum;
          s.count += count;
        },
        close() {
          if (closed) return;
          closed = true;
          release(o);
        },
      };
    },
  };
}
