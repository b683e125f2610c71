/**
 * The web globals a script's sandbox provides besides the language itself (the same ones the
 * server's type check declares): `console` (lines go to the server log), TextEncoder, TextDecoder.
 * `tributary new-model` lists this file in the model's tsconfig.json so editors know them.
 */
interface Console { log(...a: unknown[]): void; info(...a: unknown[]): void; warn(...a: unknown[]): void; error(...a: unknown[]): void; debug(...a: unknown[]): void; trace(...a: unknown[]): void }
declare var console: Console;
declare class TextEncoder { readonly encoding: string; encode(input?: string): Uint8Array; encodeInto(s: string, dst: Uint8Array): { read: number; written: number } }
declare class TextDecoder { constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }); readonly encoding: string; decode(input?: ArrayBufferView | ArrayBuffer): string }
