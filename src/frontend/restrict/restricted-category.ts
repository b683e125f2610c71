/**
 * Triton's restriction categories (RESTRICTED_CATEGORY_NAMES in tritonserver): each HTTP route
 * and each gRPC method belongs to exactly one. Names are matched exactly, as tritonserver does.
 */
export const RESTRICTED_CATEGORIES = [
  'health', 'metadata', 'inference', 'shared-memory', 'model-config', 'model-repository', 'statistics', 'trace', 'logging',
] as const;

export type RestrictedCategory = (typeof RESTRICTED_CATEGORIES)[number];

/** Categories of ours, HTTP only: `openai`, the OpenAI-compatible API (/v1/...). */
const HTTP_ONLY_CATEGORIES = ['openai'] as const;

/** A category of --http-restricted-api: Triton's, or one the HTTP front end alone has. */
export type HttpRestrictedCategory = RestrictedCategory | (typeof HTTP_ONLY_CATEGORIES)[number];

/** The categories a flag takes: --http-restricted-api has Triton's and ours, --grpc-restricted-protocol Triton's. */
export function categoriesOf(http: boolean): readonly HttpRestrictedCategory[] {
  return http ? [...RESTRICTED_CATEGORIES, ...HTTP_ONLY_CATEGORIES] : RESTRICTED_CATEGORIES;
}

export function isCategoryOf(categories: readonly HttpRestrictedCategory[], s: string): s is HttpRestrictedCategory {
  return (categories as readonly string[]).includes(s);
}
