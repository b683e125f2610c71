/**
 * Fixed-bucket latency histogram (perf_analyzer sorts arrays; we never allocate per sample):
 * 1 µs buckets below 1024 µs, then 512 buckets per power of two (<= 0.2% error) up to ~16 s.
 */
const LINEAR = 1024;
const SUB = 512;
const OCTAVES = 14; // 2^10 .. 2^24 µs
const SIZE = LINEAR + OCTAVES * SUB;

export class LogHistogram {
  readonly counts = new Float64Array(SIZE);
  count = 0;
  sum = 0;
  max = 0;

  /** Record one latency in microseconds. */
  record(us: number): void {
    this.count++;
    this.sum += us;
    if (us > this.max) this.max = us;
    this.counts[LogHistogram.index(us)]!++;
  }

  static index(us: number): number {
    if (us < LINEAR) return us < 0 ? 0 : Math.floor(us);
    const e = Math.floor(Math.log2(us));
    const octave = Math.min(e - 10, OCTAVES - 1);
    const base = 2 ** (octave + 10);
    const sub = Math.min(SUB - 1, Math.floor(((us - base) / base) * SUB));
    return LINEAR + octave * SUB + sub;
  }

  /** Representative value (bucket middle) of a bucket index, µs. */
  static value(i: number): number {
    if (i < LINEAR) return i + 0.5;
    const octave = Math.floor((i - LINEAR) / SUB);
    const base = 2 ** (octave + 10);
    return base + ((i - LINEAR - octave * SUB + 0.5) / SUB) * base;
  }

  /** The q-quantile (0..1) in microseconds. */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const target = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < SIZE; i++) {
      seen += this.counts[i]!;
      if (seen >= target) return Math.min(LogHistogram.value(i), this.max);
    }
    return this.max;
  }

  mean(): number {
    return this.count ? this.sum / this.count : 0;
  }

  merge(other: LogHistogram): this {
    for (let i = 0; i < SIZE; i++) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    this.sum += other.sum;
    this.max = Math.max(this.max, other.max);
    return this;
  }
}
