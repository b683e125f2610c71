import { seededRandom } from '../../scripts/onnx/index.js';

export const SAMPLE_RATE = 16000;
/** Silero VAD v4 takes 512, 1024 or 1536 samples per call at 16 kHz. */
export const CHUNK = 512;

/**
 * A speech-like test signal at 16 kHz: background noise, then voiced bursts (a harmonic series on a
 * gliding pitch, shaped by two formant-like resonances and a syllable-rate envelope), then noise
 * again. Deterministic for a seed.
 */
export function speechLikeSignal(seconds: number, seed: number): Float32Array {
  const rand = seededRandom(seed);
  const n = Math.round(seconds * SAMPLE_RATE);
  const out = new Float32Array(n);
  const voicedFrom = 0.25 * n;
  const voicedTo = 0.75 * n;
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const t = i / SAMPLE_RATE;
    let v = 0.01 * (rand() * 2 - 1);
    if (i >= voicedFrom && i < voicedTo) {
      const f0 = 120 + 40 * Math.sin(2 * Math.PI * 1.3 * t);
      phase += (2 * Math.PI * f0) / SAMPLE_RATE;
      const syllable = Math.max(0, Math.sin(2 * Math.PI * 4 * t));
      let voiced = 0;
      for (let k = 1; k <= 20; k++) {
        const f = k * f0;
        const formants = Math.exp(-(((f - 700) / 200) ** 2)) + 0.6 * Math.exp(-(((f - 1200) / 250) ** 2)) + 0.05;
        voiced += formants * Math.sin(k * phase);
      }
      v += 0.3 * syllable * voiced;
    }
    out[i] = Math.fround(v);
  }
  return out;
}

/** The signal cut into CHUNK-sample chunks (the tail that does not fill a chunk is dropped). */
export function chunks(signal: Float32Array): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i + CHUNK <= signal.length; i += CHUNK) out.push(signal.slice(i, i + CHUNK));
  return out;
}
