import type { HttpRestrictedCategory, RestrictedCategory } from './restricted-category.js';

/** Routes outside `/v2/models/:model`, by their registered pattern (tritonserver's http_server.cc). */
const FIXED: Readonly<Record<string, RestrictedCategory>> = {
  '/v2': 'metadata',
  '/v2/health/live': 'health',
  '/v2/health/ready': 'health',
  '/v2/models/stats': 'statistics',
  '/v2/logging': 'logging',
  '/v2/trace/setting': 'trace',
};

const PREFIXES: readonly [string, HttpRestrictedCategory][] = [
  // The OpenAI-compatible API (src/frontend/openai/): a category of its own, HTTP only.
  ['/v1/', 'openai'],
  ['/v2/repository/', 'model-repository'],
  ['/v2/systemsharedmemory/', 'shared-memory'],
  ['/v2/cudasharedmemory/', 'shared-memory'],
];

/** What follows `/v2/models/:model[/versions/:version]`. Model readiness is health, as in Triton. */
const MODEL_SUFFIX: Readonly<Record<string, RestrictedCategory>> = {
  '': 'metadata',
  '/ready': 'health',
  '/infer': 'inference',
  '/generate': 'inference',
  '/generate_stream': 'inference',
  '/config': 'model-config',
  '/stats': 'statistics',
  '/trace/setting': 'trace',
};

const MODEL_ROUTE = /^\/v2\/models\/:model(?:\/versions\/:version)?(\/.*)?$/;

/**
 * The category of a fastify route pattern (e.g. `/v2/models/:model/versions/:version/infer`),
 * or undefined when the pattern is not one the restriction table knows. Patterns, not request
 * URLs: the router has already decided which route a request is, so no URL spelling
 * (`//v2`, `%2F`, a trailing '/') can land in a different category than its handler.
 */
export function httpRouteCategory(pattern: string): HttpRestrictedCategory | undefined {
  const fixed = FIXED[pattern];
  if (fixed) return fixed;
  for (const [prefix, category] of PREFIXES) if (pattern.startsWith(prefix)) return category;
  const m = MODEL_ROUTE.exec(pattern);
  return m ? MODEL_SUFFIX[m[1] ?? ''] : undefined;
}
