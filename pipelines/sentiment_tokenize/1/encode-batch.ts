/**
 * Hugging Face-style batch encoding around a tokenizer's single-text `encode`: truncation to
 * `maxLength` (keeping the final [SEP]) and padding to `maxLength` ('max_length', fixed shapes so
 * the classifier's dynamic batcher can merge requests) or to the longest text ('longest').
 * Produces INT64 data, the dtype BERT-family ONNX exports take.
 */

export interface TextEncoder { encode(text: string): { ids: number[] } }

export interface EncodeOptions { maxLength: number; padding: 'max_length' | 'longest'; padId: number; sepId: number }

export interface EncodedBatch { inputIds: BigInt64Array; attentionMask: BigInt64Array; length: number }

export function encodeBatch(tokenizer: TextEncoder, texts: string[], opts: EncodeOptions): EncodedBatch {
  const rows = texts.map((t) => {
    const ids = tokenizer.encode(t).ids;
    if (ids.length <= opts.maxLength) return ids;
    const cut = ids.slice(0, opts.maxLength - 1);
    cut.push(opts.sepId);
    return cut;
  });
  const length = opts.padding === 'max_length' ? opts.maxLength : Math.max(1, ...rows.map((r) => r.length));
  const inputIds = new BigInt64Array(texts.length * length);
  const attentionMask = new BigInt64Array(texts.length * length);
  // Token ids and the mask fit in the low 32-bit word of each INT64 (high word 0), so they are
  // written through 32-bit views: a BigInt per element cost ~16 of this function's ~75 µs.
  const ids = LITTLE_ENDIAN ? new Int32Array(inputIds.buffer) : undefined;
  const mask = LITTLE_ENDIAN ? new Int32Array(attentionMask.buffer) : undefined;
  rows.forEach((row, i) => {
    for (let j = 0; j < length; j++) {
      const k = i * length + j;
      const id = j < row.length ? row[j]! : opts.padId;
      if (ids && mask && id >= 0 && id <= 0x7fffffff) {
        ids[2 * k] = id;
        if (j < row.length) mask[2 * k] = 1;
      } else {
        inputIds[k] = BigInt(id);
        if (j < row.length) attentionMask[k] = 1n;
      }
    }
  });
  return { inputIds, attentionMask, length };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
