/**
 * A word bigram Markov chain: for each word of a corpus, the words that follow it and how often.
 * It generates text by walking from word to word. It is not a language model: it knows nothing
 * but which word followed which in its corpus, so its answers are corpus-flavoured word salad
 * that may wander off the prompt's subject. Pure: runs in Node tests and inside the sandbox.
 */

export interface Chain {
  /** Successors of each word (lower case) with their counts, in corpus order. */
  next: Map<string, Map<string, number>>;
  /** Words that begin a sentence in the corpus. */
  starts: string[];
}

const TOKEN = /[A-Za-z][A-Za-z'-]*|[.,;:!?]/g;
const END = new Set(['.', '!', '?']);
const PUNCT = /^[.,;:!?]$/;

export function buildChain(corpus: string): Chain {
  const words = (corpus.match(TOKEN) ?? []).map((w) => w.toLowerCase());
  const next = new Map<string, Map<string, number>>();
  const starts: string[] = [];
  words.forEach((w, i) => {
    if (i === 0 || END.has(words[i - 1]!)) if (!PUNCT.test(w)) starts.push(w);
    const after = words[i + 1];
    if (after === undefined) return;
    const m = next.get(w) ?? new Map<string, number>();
    m.set(after, (m.get(after) ?? 0) + 1);
    next.set(w, m);
  });
  return { next, starts };
}

/** mulberry32: a small seeded generator, so a request's `seed` gives the same text again. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The successor of `word`: temperature 0 takes the most frequent one (the first met in a tie);
 * otherwise each is drawn with weight count^(1/temperature), so higher temperatures flatten the
 * choice towards the rarer words.
 */
export function nextWord(chain: Chain, word: string, temperature: number, random: () => number): string | undefined {
  const m = chain.next.get(word);
  if (!m || m.size === 0) return undefined;
  const entries = [...m];
  if (temperature <= 0) return entries.reduce((best, e) => (e[1] > best[1] ? e : best))[0];
  const weights = entries.map(([, c]) => c ** (1 / temperature));
  let r = random() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < entries.length; i++) {
    r -= weights[i]!;
    if (r < 0) return entries[i]![0];
  }
  return entries[entries.length - 1]![0];
}

/** The word to begin with: the last word of the prompt the chain knows, else a sentence start. */
export function firstWord(chain: Chain, prompt: string, random: () => number, skip: ReadonlySet<string>): string {
  const words = (prompt.match(TOKEN) ?? []).map((w) => w.toLowerCase()).filter((w) => !PUNCT.test(w) && !skip.has(w));
  for (let i = words.length - 1; i >= 0; i--) if (chain.next.has(words[i]!)) return words[i]!;
  return chain.starts[Math.floor(random() * chain.starts.length)] ?? 'the';
}

/** How a word joins the text so far: capitalised after a sentence end, no space before punctuation. */
export function piece(word: string, previous: string | undefined): string {
  if (PUNCT.test(word)) return word;
  const text = previous === undefined || END.has(previous) ? word[0]!.toUpperCase() + word.slice(1) : word;
  return previous === undefined ? text : ` ${text}`;
}

export function isSentenceEnd(word: string): boolean {
  return END.has(word);
}
