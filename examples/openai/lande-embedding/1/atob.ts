/**
 * The sandbox has no `atob` (a browser and Node global, not a JavaScript one), and toygrad, which
 * lande runs on, decodes its weights with it when lande's module loads. Imported before lande.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUE = new Map([...ALPHABET].map((c, i) => [c, i]));

function decodeBase64(text: string): string {
  const s = text.replace(/[\s=]/g, '');
  let out = '';
  let bits = 0;
  let acc = 0;
  for (const c of s) {
    const v = VALUE.get(c);
    if (v === undefined) throw new Error(`atob: '${c}' is not a base64 character`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((acc >> bits) & 0xff);
    }
  }
  return out;
}

const g = globalThis as { atob?: (s: string) => string };
g.atob ??= decodeBase64;
