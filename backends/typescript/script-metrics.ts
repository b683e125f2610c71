import type { CustomMetricsScope } from '../../src/backend/index.js';
import { Errors, boundMessage, toTributaryError } from '../../src/errors.js';
import { METRIC_ADD, METRIC_OBSERVE, METRIC_SET, type WireError } from './bls/wire.js';

/**
 * The host's side of a script's custom metrics (bls/metric-family.ts): declarations answered at
 * once with an id or the error the script throws, and the batched updates applied to the model's
 * scope. The scope checks what a series id may do; this only decodes.
 */
function answer(model: string, scope: CustomMetricsScope | undefined, f: (s: CustomMetricsScope) => number): number | WireError {
  try {
    if (!scope) throw Errors.scriptMetricInvalid(model, 'custom metrics are not available here (a server gives them to its scripts; this host has no metrics)');
    return f(scope);
  } catch (e) {
    const err = toTributaryError(e);
    return { message: boundMessage(err.message), kind: err.kind, code: err.code };
  }
}

export function declareFamily(model: string, scope: CustomMetricsScope | undefined, name: unknown, description: unknown, kind: unknown): number | WireError {
  return answer(model, scope, (s) => s.family(name, description, kind));
}

export function declareMetric(model: string, scope: CustomMetricsScope | undefined, familyId: unknown, labels: unknown, buckets: unknown): number | WireError {
  return answer(model, scope, (s) => s.metric(Number(familyId), labels, buckets));
}

/** Most buckets a histogram update may carry (the scope's bound is lower; this only keeps decoding in step). */
const MAX_UPDATE_BUCKETS = 1024;

/** Apply one flush of updates (bls/wire.ts has the layout); a malformed tail is dropped. */
export function applyMetricUpdates(scope: CustomMetricsScope | undefined, updates: unknown): void {
  if (!scope || !Array.isArray(updates)) return;
  const u = updates as unknown[];
  for (let i = 0; i < u.length;) {
    const op = u[i];
    const id = u[i + 1] as number;
    if (op === METRIC_ADD) { scope.add(id, u[i + 2] as number); i += 3; }
    else if (op === METRIC_SET) { scope.set(id, u[i + 2] as number); i += 3; }
    else if (op === METRIC_OBSERVE) {
      const n = u[i + 4];
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_UPDATE_BUCKETS) return;
      scope.observe(id, u[i + 2] as number, u[i + 3] as number, u.slice(i + 5, i + 5 + n) as number[]);
      i += 5 + n;
    } else return;
  }
}
