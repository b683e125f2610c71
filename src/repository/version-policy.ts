import type { ModelVersionPolicy } from '../config/index.js';

/** Versions to serve under a version_policy (Triton: latest N by default, or all, or specific). */
export function selectVersions(policy: ModelVersionPolicy, available: readonly number[]): number[] {
  const sorted = [...available].sort((a, b) => a - b);
  if (policy.all) return sorted;
  if (policy.specific) return sorted.filter((v) => policy.specific!.versions.includes(v));
  const n = policy.latest?.num_versions ?? 1;
  return sorted.slice(Math.max(0, sorted.length - n));
}
