/**
 * Stop strings (`stop`), applied by the front end to any model's text: text is let through as it
 * comes, except a tail that could be the start of a stop string, which is held until the next
 * delta tells (at most the longest stop string less one character). Once a stop string appears,
 * the text before it is the last there is, and the caller cancels the model's run.
 */
export class StopScanner {
  readonly #stops: readonly string[];
  #held = '';

  constructor(stops: readonly string[]) {
    this.#stops = stops;
  }

  /** The text that may go out now, and whether a stop string ended the text. */
  push(delta: string): { text: string; stopped: boolean } {
    if (this.#stops.length === 0) return { text: delta, stopped: false };
    const text = this.#held + delta;
    let at = -1;
    for (const s of this.#stops) {
      const i = text.indexOf(s);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
    if (at >= 0) {
      this.#held = '';
      return { text: text.slice(0, at), stopped: true };
    }
    const keep = this.#partial(text);
    this.#held = text.slice(text.length - keep);
    return { text: text.slice(0, text.length - keep), stopped: false };
  }

  /** The end of the text: whatever was held back was no stop string after all. */
  flush(): string {
    const held = this.#held;
    this.#held = '';
    return held;
  }

  /** Length of the longest tail of `text` that is a proper prefix of a stop string. */
  #partial(text: string): number {
    let best = 0;
    for (const s of this.#stops) {
      for (let k = Math.min(s.length - 1, text.length); k > best; k--) {
        if (text.endsWith(s.slice(0, k))) { best = k; break; }
      }
    }
    return best;
  }
}
