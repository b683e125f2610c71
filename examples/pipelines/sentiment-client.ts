/**
 * Sentiment over HTTP: `node --import tsx examples/pipelines/sentiment-client.ts [text...]`
 * against `npm start` (or TRIBUTARY_URL). The served model is an AFINN lexicon classifier behind
 * a DistilBERT-style interface (see pipelines/sentiment/README.md).
 */
import { pathToFileURL } from 'node:url';
import { defaultUrl, infer, output } from './v2-fetch.js';

export interface Sentiment { label: string; score: number }

export async function classifySentiment(baseUrl: string, texts: string[]): Promise<Sentiment[]> {
  const res = await infer(baseUrl, 'sentiment', [{ name: 'TEXT', datatype: 'BYTES', shape: [texts.length, 1], data: texts }]);
  const labels = output(res, 'LABEL').data as string[];
  const scores = output(res, 'SCORE').data as number[];
  return labels.map((label, i) => ({ label, score: scores[i]! }));
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const texts = process.argv.slice(2);
  if (texts.length === 0) texts.push('What a wonderful, delightful film.', 'The service was terrible and the food was awful.');
  const results = await classifySentiment(defaultUrl(), texts);
  texts.forEach((t, i) => console.log(`${results[i]!.label.padEnd(8)} ${results[i]!.score.toFixed(3)}  ${t}`));
}
