import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { Errors, type TributaryError } from '../errors.js';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

/**
 * Parse flags the way tritonserver spells them (`--flag=value` or `--flag value`), rejecting
 * unknown flags with a message that names them and points at --help.
 */
export function parseFlags(command: string, argv: readonly string[], options: FlagSpec): { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] } {
  try {
    const r = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    return { values: r.values as Record<string, string | boolean | (string | boolean)[] | undefined>, positionals: r.positionals };
  } catch (e) {
    throw Errors.cliArgsInvalid(command, (e as Error).message.replace(/\. To specify a positional.*$/s, ''));
  }
}

export function intFlag(name: string, v: unknown, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (String(v).trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw Errors.cliFlagExpects(name, `an integer ${range}`, String(v));
  }
  return n;
}

/** A TCP port flag: 0 asks the OS for any free port. */
export function portFlag(name: string, v: unknown, fallback: number): number {
  return intFlag(name, v, fallback, 0, 65535);
}

export function boolFlag(name: string, v: unknown, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (v === true) return true;
  const s = String(v).toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off'].includes(s)) return false;
  throw Errors.cliFlagExpects(name, 'true or false', String(v));
}

export function listFlag(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** A PEM file named by a TLS flag, read at start; a failure names the flag and the file, never the contents. */
function pemFlag(fail: (msg: string) => TributaryError, flag: string, path: unknown): Buffer {
  try {
    return readFileSync(String(path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw fail(`--${flag}: cannot read '${String(path)}' (${code})`);
  }
}

/**
 * The TLS flags of one front end, with tritonserver's meanings (`<p>` is 'http' or 'grpc'):
 * --<p>-use-ssl-mutual implies --<p>-use-ssl; certificate flags without either are ignored with a
 * warning; the files are read here, before any model loads, and a missing flag or file is refused
 * naming it. Returns undefined when the front end serves plain text.
 */
export function tlsFlags(
  f: Record<string, unknown>, p: 'http' | 'grpc', log: { warn(msg: string): void }, fail: (msg: string) => TributaryError,
): { cert: Buffer; key: Buffer; rootCert?: Buffer; mutual: boolean } | undefined {
  const mutual = boolFlag(`${p}-use-ssl-mutual`, f[`${p}-use-ssl-mutual`], false);
  const ssl = mutual || boolFlag(`${p}-use-ssl`, f[`${p}-use-ssl`], false);
  const [cert, key, root] = [`${p}-server-cert`, `${p}-server-key`, `${p}-root-cert`] as const;
  if (!ssl) {
    const given = [cert, key, root].filter((k) => f[k] !== undefined);
    const name = p === 'http' ? 'HTTP' : 'gRPC';
    if (given.length > 0) log.warn(`${given.map((k) => `--${k}`).join(', ')} ignored: ${name} serves plain text unless --${p}-use-ssl=true or --${p}-use-ssl-mutual=true`);
    return undefined;
  }
  for (const flag of [cert, key, ...(mutual ? [root] : [])]) {
    if (f[flag] === undefined) throw fail(`--${mutual ? `${p}-use-ssl-mutual` : `${p}-use-ssl`}=true needs --${flag}`);
  }
  return {
    cert: pemFlag(fail, cert, f[cert]),
    key: pemFlag(fail, key, f[key]),
    ...(f[root] === undefined ? {} : { rootCert: pemFlag(fail, root, f[root]) }),
    mutual,
  };
}
