/**
 * Language identification over HTTP: `node --import tsx examples/pipelines/langid-client.ts [text...]`
 * against `npm start` (or TRIBUTARY_URL). Prints the top 3 ISO 639-3 codes per text.
 */
import { pathToFileURL } from 'node:url';
import { defaultUrl, infer, output, rows } from './v2-fetch.js';

export interface LanguageGuess { language: string; probability: number }

export async function identifyLanguages(baseUrl: string, texts: string[], topK?: number): Promise<LanguageGuess[][]> {
  const res = await infer(baseUrl, 'langid', [{ name: 'TEXT', datatype: 'BYTES', shape: [texts.length, 1], data: texts }],
    topK === undefined ? undefined : { top_k: topK });
  const langs = rows<string>(output(res, 'LANGUAGE'));
  const probs = rows<number>(output(res, 'PROBABILITY'));
  return langs.map((row, i) => row.map((language, j) => ({ language, probability: probs[i]![j]! })));
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const texts = process.argv.slice(2);
  if (texts.length === 0) texts.push('The weather is lovely today.', 'Il fait très beau aujourd\'hui.', 'Hoy hace muy buen tiempo.');
  const guesses = await identifyLanguages(defaultUrl(), texts);
  texts.forEach((t, i) => console.log(`${t}\n  ${guesses[i]!.map((g) => `${g.language} ${g.probability.toFixed(3)}`).join('  ')}`));
}
