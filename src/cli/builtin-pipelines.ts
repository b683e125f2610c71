import { fileURLToPath } from 'node:url';

/**
 * The built-in pipelines' repository (`npm start` serves it). `validate` and `graph` name it when a
 * pipeline's step model is there but not in the repositories given: building on its models is
 * the first thing the docs suggest.
 */
export const BUILTIN_PIPELINES = fileURLToPath(new URL('../../pipelines/', import.meta.url)).replace(/\/$/, '');
