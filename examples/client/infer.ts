/**
 * The client SDK in a few lines: `node --import tsx examples/client/infer.ts [http|grpc] [text...]`
 * against `npm start` (HTTP on 8000, gRPC on 8001; TRIBUTARY_URL / TRIBUTARY_GRPC override).
 * Asks the built-in `langid` pipeline for the two likeliest languages of each text.
 */
import { pathToFileURL } from 'node:url';
import { createGrpcClient, createHttpClient, createTensor, tensorStrings, type InferenceClient } from '../../src/client/index.js';

export function connect(transport: string): InferenceClient {
  return transport === 'grpc'
    ? createGrpcClient({ address: process.env.TRIBUTARY_GRPC ?? '127.0.0.1:8001' })
    : createHttpClient({ url: process.env.TRIBUTARY_URL ?? 'http://127.0.0.1:8000' });
}

export async function topLanguages(client: InferenceClient, texts: string[]): Promise<{ language: string; probability: number }[][]> {
  const res = await client.infer('langid', [createTensor('TEXT', 'BYTES', [texts.length, 1], texts)], { parameters: { top_k: 2 } });
  const languages = tensorStrings(res.output('LANGUAGE'));
  const probabilities = res.output('PROBABILITY').data as Float32Array; // [N, 2], row-major
  return texts.map((_, i) => [0, 1].map((j) => ({ language: languages[i * 2 + j]!, probability: probabilities[i * 2 + j]! })));
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const [transport = 'http', ...texts] = process.argv.slice(2);
  if (texts.length === 0) texts.push('Der Zug fährt um acht Uhr ab.', 'Le train part à huit heures.');
  const client = connect(transport);
  try {
    if (!(await client.isServerReady())) throw new Error('the server is not ready');
    const meta = await client.modelMetadata('langid');
    console.log(`${transport}: langid v${meta.versions.join(',')} ${meta.inputs.map((i) => `${i.name} ${i.datatype} [${i.shape}]`).join(', ')}`);
    const guesses = await topLanguages(client, texts);
    texts.forEach((t, i) => console.log(`${t}\n  ${guesses[i]!.map((g) => `${g.language} ${g.probability.toFixed(3)}`).join('  ')}`));
  } finally {
    await client.close();
  }
}
