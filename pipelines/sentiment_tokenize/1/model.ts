/** `sentiment_tokenize` BLS model: TEXT [N,1] -> input_ids, attention_mask INT64 [N,L]. */
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceResponse, ModelError, Tensor } from 'tributary/bls';
import type { InitializeArgs, Request } from 'tributary/bls';
import { encodeBatch, type EncodeOptions } from './encode-batch.js';

export default class SentimentTokenize {
  private tokenizer!: Tokenizer;
  private opts!: EncodeOptions;

  initialize(args: InitializeArgs): void {
    const name = args.modelName;
    const file = (f: string) => {
      const path = `${args.modelVersion}/${f}`;
      if (!(path in args.files)) throw new ModelError(`model '${name}': ${path} is missing; build the pipeline files with: npm run build-models`, 'UNAVAILABLE');
      return args.readJson<object>(path);
    };
    this.tokenizer = new Tokenizer(file('tokenizer.json'), file('tokenizer_config.json'));
    const param = (k: string, d: string) => args.config.parameters?.[k]?.string_value ?? d;
    const maxLength = Number(param('max_length', '128'));
    const padding = param('padding', 'max_length');
    if (!Number.isInteger(maxLength) || maxLength < 2) throw new ModelError(`model '${name}': parameter 'max_length' must be an integer >= 2`, 'INVALID_ARG');
    if (padding !== 'max_length' && padding !== 'longest') throw new ModelError(`model '${name}': parameter 'padding' must be 'max_length' or 'longest', got '${padding}'`, 'INVALID_ARG');
    const id = (t: string) => this.tokenizer.token_to_id(t) as number;
    this.opts = { maxLength, padding, padId: id('[PAD]'), sepId: id('[SEP]') };
  }

  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const texts = r.input('TEXT').strings();
      const { inputIds, attentionMask, length } = encodeBatch(this.tokenizer, texts, this.opts);
      return new InferenceResponse({
        outputs: [
          new Tensor('input_ids', 'INT64', [texts.length, length], inputIds),
          new Tensor('attention_mask', 'INT64', [texts.length, length], attentionMask),
        ],
      });
    });
  }
}
