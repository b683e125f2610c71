/**
 * Triton's restriction categories (RESTRICTED_CATEGORY_NAMES in tritonserver): each HTTP route
 * and each gRPC method belongs to exactly one. Names are matched exactly, as tritonserver does.
 */
export const RESTRICTED_CATEGORIES = [
  'health', 'metadata', 'inference', 'shared-memory', 'model-config', 'model-repository', 'statistics', 'trace', 'logging',
] as const;

export type RestrictedCategory = (typeof RESTRICTED_CATEGORIES)[number];

export function isRestrictedCategory(s: string): s is RestrictedCategory {
  return (RESTRICTED_CATEGORIES as readonly string[]).includes(s);
}
