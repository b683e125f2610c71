/** An experiment compiled against its variants: what the router reads on every request. */

/**
 * One variant. `experiment` and `variant` make it the metrics record of a request routed to it
 * (one object per variant, so a listener may key caches on it).
 */
export interface PlanVariant {
  readonly experiment: string;
  /** The metrics label: the model name, `name:version` when a version is pinned. */
  readonly variant: string;
  readonly model: string;
  /** A pinned version; undefined = the version the model serves by default. */
  readonly version: string | undefined;
  readonly weight: number;
  /** This variant owns the points [previous upTo, upTo) of [0, total). */
  readonly upTo: number;
}

export interface PlanMirror {
  readonly model: string;
  readonly version: string | undefined;
  /** 0..100 */
  readonly percent: number;
  readonly maxInflight: number;
}

export type PlanSticky = { readonly header: string } | { readonly parameter: string };

export interface ExperimentPlan {
  readonly name: string;
  readonly variants: readonly PlanVariant[];
  /** The sum of the weights (> 0). */
  readonly total: number;
  /** Undefined = weighted random (a request of a sequence is always sticky on its correlation id). */
  readonly sticky: PlanSticky | undefined;
  readonly mirror: PlanMirror | undefined;
  readonly decoupled: boolean;
}
