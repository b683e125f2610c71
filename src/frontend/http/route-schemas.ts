/**
 * JSON schemas of the KServe v2 / Triton routes (fastify validates params and bodies with them
 * before a handler runs; send-error.ts words a failure). Bodies are checked for their shape here;
 * the rules on values (a trace level, a load parameter) are the data plane's, once for HTTP and
 * gRPC.
 */
const nameParam = { type: 'string', minLength: 1 } as const;

export const modelParams = {
  type: 'object',
  properties: { model: nameParam, version: { type: 'string' } },
  required: ['model'],
} as const;

export const regionParams = { type: 'object', properties: { region: nameParam } } as const;

/** Load and unload: `{"parameters": {name: value}}`; values are JSON scalars (bytes as base64). */
export const repositoryBody = {
  type: 'object',
  properties: {
    parameters: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
  },
} as const;

export const indexBody = { type: 'object', properties: { ready: { type: 'boolean' } } } as const;

/** Logging and trace settings: `{name: value}`; a value is a scalar, a list of strings or null. */
export const settingsBody = {
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean', 'null', 'array'], items: { type: ['string', 'number'] } },
} as const;

export const registerBody = {
  type: 'object',
  // offset and byte_size may be bigints past 2^53 (exact JSON), which the data plane refuses by value.
  // Not `required`: a missing field is the data plane's to name, in Triton's words.
  properties: { key: { type: 'string', minLength: 1 }, offset: {}, byte_size: {} },
} as const;

const stringList = { type: 'array', items: { type: 'string' } } as const;

export const serverMetadataResponse = {
  200: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' }, extensions: stringList }, required: ['name', 'version', 'extensions'] },
} as const;

/** Objects whose fields the core owns (metadata, configuration, statistics): passed through whole. */
export const objectResponse = { 200: { type: 'object', additionalProperties: true } } as const;

export const settingsResponse = {
  200: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, stringList] } },
} as const;

export const repositoryIndexResponse = {
  200: {
    type: 'array',
    items: {
      type: 'object',
      properties: { name: { type: 'string' }, version: { type: 'string' }, state: { type: 'string' }, reason: { type: 'string' } },
      required: ['name'],
    },
  },
} as const;

export const regionStatusResponse = {
  200: {
    type: 'array',
    items: {
      type: 'object',
      properties: { name: { type: 'string' }, key: { type: 'string' }, offset: { type: 'integer' }, byte_size: { type: 'integer' } },
    },
  },
} as const;
