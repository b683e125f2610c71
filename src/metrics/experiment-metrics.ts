/**
 * Experiments (tributary families; Triton has none): requests routed per variant, and what became
 * of the mirror's copies. A variant's own requests are in its nv_inference_* families already;
 * these say how the experiment split its traffic.
 */
import { Counter, type Registry } from 'prom-client';
import type { ExperimentMirrorRecord, ExperimentRouteRecord, ModelListener } from '../model/index.js';

type Recorders = Required<Pick<ModelListener, 'onExperimentRoute' | 'onExperimentMirror'>>;

export function createExperimentRecorders(registry: Registry): Recorders {
  const registers = [registry];
  const requests = new Counter({ name: 'tributary_experiment_requests_total', help: 'Requests an experiment routed, per experiment and variant (the variant model, name:version when the experiment pins a version)', labelNames: ['experiment', 'variant'], registers });
  const mirror = new Counter({ name: 'tributary_experiment_mirror_total', help: "Copies of an experiment's requests for its mirror: sent, dropped (the mirror's in-flight bound was full), failed (the mirror answered an error; also counted as sent)", labelNames: ['experiment', 'outcome'], registers });
  // The records are one object per variant (per outcome), made at load: the labelled child is
  // looked up once per object instead of hashing the labels on every request.
  const routed = new WeakMap<ExperimentRouteRecord, { inc(): void }>();
  const mirrored = new WeakMap<ExperimentMirrorRecord, { inc(): void }>();
  return {
    onExperimentRoute(r) {
      let c = routed.get(r);
      if (!c) routed.set(r, c = requests.labels(r.experiment, r.variant));
      c.inc();
    },
    onExperimentMirror(r) {
      let c = mirrored.get(r);
      if (!c) mirrored.set(r, c = mirror.labels(r.experiment, r.outcome));
      c.inc();
    },
  };
}
