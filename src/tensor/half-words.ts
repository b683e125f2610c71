/**
 * FP16 and BF16 elements travel as raw 16-bit words (Uint16Array storage); these widen one word to
 * the number it encodes, exactly. Used where elements are read as values: JSON output and
 * pipeline conditions.
 */

/** IEEE half -> number (exact). */
export function halfToNumber(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

// One scratch pair: bfloat16 is the top half of an FP32, so widening is a shift and a reinterpret.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** bfloat16 -> number (exact). */
export function bf16ToNumber(h: number): number {
  u32[0] = h << 16;
  return f32[0]!;
}
