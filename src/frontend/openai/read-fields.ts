/**
 * Readers of an OpenAI request body's fields. A field that is absent or null takes its default
 * (OpenAI's clients send null for unset options); one of the wrong type or out of range is a
 * TRB_OPENAI_FIELD_INVALID naming it. Fields nobody reads are ignored, as OpenAI's API allows.
 */
import { fieldError, limitError } from './openai-error.js';

export type Body = Readonly<Record<string, unknown>>;

/** What a client sent, briefly, for a message: its JSON type, and a short value. */
export function shown(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (typeof v === 'object') return 'an object';
  const text = JSON.stringify(v) ?? String(v);
  return `${typeof v} ${text.length > 40 ? `${text.slice(0, 40)}...` : text}`;
}

export function objectBody(json: unknown): Body {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw fieldError('body', `must be a JSON object, got ${shown(json)}`);
  return json as Body;
}

const present = (v: unknown) => v !== undefined && v !== null;

export function requiredString(body: Body, name: string): string {
  const v = body[name];
  if (!present(v)) throw fieldError(name, 'is required');
  if (typeof v !== 'string') throw fieldError(name, `must be a string, got ${shown(v)}`);
  return v;
}

export function optionalString(body: Body, name: string): string | undefined {
  const v = body[name];
  if (!present(v)) return undefined;
  if (typeof v !== 'string') throw fieldError(name, `must be a string, got ${shown(v)}`);
  return v;
}

export function optionalBool(body: Body, name: string): boolean | undefined {
  const v = body[name];
  if (!present(v)) return undefined;
  if (typeof v !== 'boolean') throw fieldError(name, `must be a boolean, got ${shown(v)}`);
  return v;
}

export function optionalNumber(body: Body, name: string, min: number, max: number): number | undefined {
  const v = body[name];
  if (!present(v)) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw fieldError(name, `must be a number, got ${shown(v)}`);
  if (v < min || v > max) throw fieldError(name, `must be between ${min} and ${max}, got ${v}`);
  return v;
}

/** An integer of at least `min`; past `max` it is a TRB_OPENAI_LIMIT (a bound of ours, not a type error). */
export function optionalInt(body: Body, name: string, min: number, max: number, flag?: string): number | undefined {
  const v = body[name];
  if (!present(v)) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw fieldError(name, `must be an integer, got ${shown(v)}`);
  if (v < min) throw fieldError(name, `must be at least ${min}, got ${v}`);
  if (v > max) throw limitError(name, 'is', v, max, flag);
  return v;
}

/** A field that is one string or a list of strings (`stop`, `prompt`, `input`), as a list. */
export function stringList(body: Body, name: string, what: string): string[] | undefined {
  const v = body[name];
  if (!present(v)) return undefined;
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v)) throw fieldError(name, `must be ${what}, got ${shown(v)}`);
  v.forEach((s, i) => {
    if (typeof s !== 'string') throw fieldError(`${name}[${i}]`, `must be a string, got ${shown(s)}`);
  });
  return v as string[];
}
