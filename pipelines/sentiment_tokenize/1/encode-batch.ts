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
  const inputIds = new BigInt64Array(texts.length * length).fill(BigInt(opts.padId));
  const attentionMask = new BigInt64Array(texts.length * length);
  rows.forEach((ids, i) => {
    for (let j = 0; j < ids.length; j++) {
      inputIds[i * length + j] = BigInt(ids[j]!);
      attentionMask[i * length + j] = 1n;
    }
  });
  return { inputIds, attentionMask, length };
}
