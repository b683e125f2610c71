/**
 * Streaming with the client SDK: `node --import tsx examples/client/stream.ts [http|grpc] [text]`.
 * The decoupled model `sentence_langid` (examples/client/models) answers once per sentence, as
 * each is done; over HTTP the responses arrive as server-sent events, over gRPC on
 * ModelStreamInfer. Serve it next to the built-in pipelines:
 *   node bin/tributary.js serve --model-repository pipelines --model-repository examples/client/models
 * Ctrl-C (the AbortSignal) or leaving the loop early cancels the rest on the server.
 */
import { pathToFileURL } from 'node:url';
import { createTensor, tensorStrings, type InferenceClient } from '../../src/client/index.js';
import { connect } from './infer.js';

export interface SentenceLanguage { sentence: string; language: string; probability: number }

export async function* sentenceLanguages(client: InferenceClient, text: string, signal?: AbortSignal): AsyncGenerator<SentenceLanguage> {
  const inputs = [createTensor('TEXT', 'BYTES', [1], [text])];
  for await (const res of client.stream('sentence_langid', inputs, signal ? { signal } : {})) {
    yield {
      sentence: tensorStrings(res.output('SENTENCE'))[0]!,
      language: tensorStrings(res.output('LANGUAGE'))[0]!,
      probability: (res.output('PROBABILITY').data as Float32Array)[0]!,
    };
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const [transport = 'http', text = 'Hello, how are you today? Je vais très bien, merci. Und dir geht es auch gut? ¡Qué alegría!'] = process.argv.slice(2);
  const client = connect(transport);
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  try {
    for await (const s of sentenceLanguages(client, text, ac.signal)) {
      console.log(`${s.language} ${s.probability.toFixed(3)}  ${s.sentence}`);
    }
  } finally {
    await client.close();
  }
}
