import type { Tensor } from '../tensor/index.js';

/**
 * A tensor whose every producer was skipped (a false `when:`, a switch case not taken). Distinct
 * from `null` (an optional pipeline input the request left out): a step reading `null` still runs,
 * a step reading SKIPPED is skipped in turn.
 */
export const SKIPPED: unique symbol = Symbol('SKIPPED');
type Skipped = typeof SKIPPED;
/** What a scope holds for a name: a tensor, an absent optional input (null), or SKIPPED. */
export type ScopeValue = Tensor | null | Skipped;

/**
 * Tensors of one pipeline request, as a tree of scopes. Single-response steps write into the scope
 * they ran in; each response of a decoupled step opens a child scope holding that response's
 * outputs, so its downstream steps run once per response (Triton's semantics) while still seeing
 * every tensor above it.
 */
export class TensorScope {
  readonly parent: TensorScope | undefined;
  children: TensorScope[] | undefined;
  /** Pipeline outputs were emitted from this scope. */
  emitted = false;
  readonly #own = new Map<string, ScopeValue>();
  #fired: Set<number> | undefined;

  constructor(parent?: TensorScope) {
    this.parent = parent;
  }

  lookup(name: string): ScopeValue | undefined {
    for (let s: TensorScope | undefined = this; s; s = s.parent) {
      const t = s.#own.get(name);
      if (t !== undefined) return t;
    }
    return undefined;
  }

  owns(name: string): boolean {
    return this.#own.has(name);
  }

  set(name: string, tensor: ScopeValue): void {
    this.#own.set(name, tensor);
  }

  fork(): TensorScope {
    const child = new TensorScope(this);
    (this.children ??= []).push(child);
    return child;
  }

  /** Marks a step as started in this scope. */
  markFired(position: number): void {
    (this.#fired ??= new Set()).add(position);
  }

  hasFired(position: number): boolean {
    return this.#fired?.has(position) ?? false;
  }

  /** Started here or in a scope below (a response of a decoupled step). */
  firedAnywhere(position: number): boolean {
    return this.hasFired(position) || (this.children?.some((c) => c.firedAnywhere(position)) ?? false);
  }
}
