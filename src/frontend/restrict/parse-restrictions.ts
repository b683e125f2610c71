import { Errors } from '../../errors.js';
import { digestOf, type Restriction } from './header-matches.js';
import { categoriesOf, isCategoryOf, type HttpRestrictedCategory } from './restricted-category.js';

/** Which header (and value digest) each restricted category demands; absent categories are open. */
export type RestrictionTable = ReadonlyMap<HttpRestrictedCategory, Restriction>;

export type RestrictFlag = 'http-restricted-api' | 'grpc-restricted-protocol';

/**
 * tritonserver prefixes the gRPC key (kRestrictedProtocolHeaderTemplate), so a gRPC group
 * `inference:infer-key=v` demands metadata `triton-grpc-protocol-infer-key: v`; HTTP uses the key as is.
 */
export const GRPC_HEADER_PREFIX = 'triton-grpc-protocol-';

/** RFC 9110 token: what a header (or gRPC metadata) name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const FORMAT = '<category>[,<category>...]:<header>=<value>';

/** The argument as it may be echoed in an error: never the value, which is a secret. */
function shown(arg: string): string {
  const eq = arg.indexOf('=');
  return JSON.stringify(eq < 0 ? arg : `${arg.slice(0, eq)}=<value>`).slice(0, 200);
}

/**
 * Parse every occurrence of `--http-restricted-api` or `--grpc-restricted-protocol`, with
 * tritonserver's syntax and refusals: each value is `<categories>:<key>=<value>` (split at the
 * first ':' and the first '=' after it, so a value may hold ':' and '='), every part non-empty,
 * categories from Triton's list (and, for HTTP, `openai`), and a category in at most one group.
 */
export function parseRestrictions(flag: RestrictFlag, values: readonly string[]): RestrictionTable {
  const http = flag === 'http-restricted-api';
  const word = http ? 'api' : 'protocol';
  const fail = (why: string) => Errors.restrictFlagInvalid(`--${flag}`, why);
  const categories = categoriesOf(http);
  const table = new Map<HttpRestrictedCategory, Restriction>();
  for (const arg of values) {
    const colon = arg.indexOf(':');
    const eq = colon < 0 ? -1 : arg.indexOf('=', colon + 1);
    const names = colon < 0 ? '' : arg.slice(0, colon);
    const key = eq < 0 ? '' : arg.slice(colon + 1, eq);
    const value = eq < 0 ? '' : arg.slice(eq + 1);
    if (names === '' || key === '' || value === '') throw fail(`expected ${FORMAT}, got ${shown(arg)}`);
    if (!TOKEN.test(key)) throw fail(`header name ${JSON.stringify(key)} is not a valid header name (letters, digits and !#$%&'*+.^_\`|~- only)`);
    const header = (http ? '' : GRPC_HEADER_PREFIX) + key;
    const restriction: Restriction = { header, key: header.toLowerCase(), digest: digestOf(value) };
    for (const name of names.split(',')) {
      if (!isCategoryOf(categories, name)) {
        throw fail(`unknown restricted ${word} ${JSON.stringify(name)}; the categories are ${categories.join(', ')}`);
      }
      if (table.has(name)) {
        throw fail(`restricted ${word} '${name}' can not be specified in multiple config groups; give each category once`);
      }
      table.set(name, restriction);
    }
  }
  return table;
}
