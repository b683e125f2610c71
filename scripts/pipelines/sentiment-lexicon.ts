/**
 * A lexicon sentiment classifier with the DistilBERT SST-2 interface, as an ONNX graph:
 *   input_ids i64 [batch,seq], attention_mask i64 [batch,seq] -> logits f32 [batch,2] (NEGATIVE, POSITIVE)
 * Each vocabulary piece carries its AFINN-165 valence (0 for most); the graph gathers the valences
 * of the input pieces, masks padding, sums per row, and maps the sum s to logits (-s/2, s/2), so
 * softmax gives P(POSITIVE) = sigmoid(s). It is a word-list model, not a transformer: no context,
 * no negation. A real DistilBERT export with the same input and output names replaces it unchanged.
 */
import { encodeModel, floatTensor, int64Tensor, node, valueInfo } from './onnx-graph.js';

export interface LexiconTable { valences: Float32Array; matched: number; skipped: number }

/** Valence per vocabulary id; AFINN entries that are not one whole-word piece are skipped. */
export function valenceTable(vocab: string[], afinn: Record<string, number>): LexiconTable {
  const ids = new Map(vocab.map((v, i) => [v, i]));
  const valences = new Float32Array(vocab.length);
  let matched = 0;
  let skipped = 0;
  for (const [word, valence] of Object.entries(afinn)) {
    const id = ids.get(word.toLowerCase());
    if (id === undefined || /\s/.test(word)) { skipped++; continue; }
    valences[id] = valence;
    matched++;
  }
  return { valences, matched, skipped };
}

export function buildSentimentLexicon(valences: Float32Array): Uint8Array {
  return encodeModel({
    name: 'afinn_lexicon_sentiment',
    doc: 'AFINN-165 word valences (MIT, github.com/words/afinn-165) over the bert-base-uncased vocabulary; lexicon model with a DistilBERT-style interface',
    inputs: [valueInfo('input_ids', 'INT64', ['batch', 'sequence']), valueInfo('attention_mask', 'INT64', ['batch', 'sequence'])],
    outputs: [valueInfo('logits', 'FLOAT', ['batch', 2])],
    initializers: [
      floatTensor('valence', [valences.length], valences),
      int64Tensor('sum_axes', [1], [1]),
      floatTensor('head', [1, 2], new Float32Array([-0.5, 0.5])),
    ],
    nodes: [
      node('Gather', ['valence', 'input_ids'], ['token_valence'], { axis: 0 }),
      node('Cast', ['attention_mask'], ['mask_f'], { to: 1 }),
      node('Mul', ['token_valence', 'mask_f'], ['masked_valence']),
      node('ReduceSum', ['masked_valence', 'sum_axes'], ['score'], { keepdims: 1 }),
      node('MatMul', ['score', 'head'], ['logits']),
    ],
  });
}
