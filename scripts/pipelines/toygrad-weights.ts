/**
 * Reads the weights of a toygrad network (the format lande ships in `standalone/t50-options.js`).
 * Each dense layer stores its biases and one string per output filter, encoded as
 * `<precision><scale>|<payload>`: precision 4 = float32 split into four byte planes, 2 = the two
 * high bytes of a float32, 1 = one byte per value ((byte - 127) / scale), `1-` = base-86 sextets.
 * Only the decoding is needed, so it lives here instead of importing toygrad (not a direct dependency).
 */

const ALPHABET_86 = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()[]{}<>*+-:;=@^_~!';

export function decodeToygradBuffer(encoded: string): Float32Array {
  const precision = Number(encoded[0]);
  const sep = encoded.indexOf('|');
  const isF6 = encoded[1] === '-';
  const payload = encoded.slice(sep >= 0 ? sep + 1 : 1);
  if (precision === 1) {
    const scale = Number(encoded.slice(isF6 ? 2 : 1, sep));
    if (isF6) {
      // the alphabet has '!' twice; like toygrad's table, the later index wins
      const index = new Map([...ALPHABET_86].map((c, i) => [c, i]));
      return Float32Array.from(payload, (c) => (index.get(c)! * 3 - 127) / scale);
    }
    const bytes = atob(payload);
    return Float32Array.from({ length: bytes.length }, (_, i) => (bytes.charCodeAt(i) - 127) / scale);
  }
  if (precision === 4 || precision === 2) {
    const bytes = atob(payload);
    const n = bytes.length / precision;
    const out = new Float32Array(n);
    const u8 = new Uint8Array(out.buffer);
    for (let i = 0; i < n; i++) {
      for (let p = 0; p < precision; p++) u8[i * 4 + (4 - precision) + p] = bytes.charCodeAt(p * n + i);
    }
    return out;
  }
  throw new Error(`unsupported toygrad weight encoding '${encoded.slice(0, 8)}...'`);
}

export interface DenseLayer {
  /** [outputs][inputs], row-major */
  weights: Float32Array;
  biases: Float32Array;
  inputs: number;
  outputs: number;
}

interface ToygradLayerOptions { type: string; sz?: number; filters?: number; _biases?: string; _filters?: string[] }

/** Extracts the dense layers of a toygrad `{ layers: [...] }` options object, checking their sizes. */
export function readDenseLayers(options: { layers: ToygradLayerOptions[] }): DenseLayer[] {
  const input = options.layers[0];
  if (input?.type !== 'input' || !input.sz) throw new Error('toygrad network: first layer is not an input layer');
  let width = input.sz;
  const dense: DenseLayer[] = [];
  for (const layer of options.layers.slice(1)) {
    if (layer.type !== 'dense') continue;
    if (!layer._filters || !layer._biases || layer.filters !== layer._filters.length) {
      throw new Error(`toygrad network: dense layer ${dense.length} has no trained weights`);
    }
    const weights = new Float32Array(layer.filters * width);
    layer._filters.forEach((f, i) => {
      const row = decodeToygradBuffer(f);
      if (row.length !== width) throw new Error(`toygrad network: filter ${i} has ${row.length} weights, expected ${width}`);
      weights.set(row, i * width);
    });
    const biases = decodeToygradBuffer(layer._biases);
    if (biases.length !== layer.filters) throw new Error(`toygrad network: ${biases.length} biases for ${layer.filters} filters`);
    dense.push({ weights, biases, inputs: width, outputs: layer.filters });
    width = layer.filters;
  }
  return dense;
}
