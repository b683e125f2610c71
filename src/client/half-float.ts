/**
 * number -> FP16 / BF16 bit patterns, the inverse of the tensor layer's halfToNumber / bf16ToNumber: the
 * server widens FP16/BF16 outputs to JSON numbers exactly, and the client narrows them back into
 * the tensor's Uint16Array storage. Rounds to nearest even for values that are not exact.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function numberToBf16(n: number): number {
  f32[0] = n;
  const bits = u32[0]!;
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0) return 0x7fc0; // NaN
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

function roundEven(x: number): number {
  const f = Math.floor(x);
  const r = x - f;
  return r > 0.5 || (r === 0.5 && f % 2 === 1) ? f + 1 : f;
}

export function numberToHalf(n: number): number {
  if (Number.isNaN(n)) return 0x7e00;
  const sign = n < 0 || Object.is(n, -0) ? 0x8000 : 0;
  const a = Math.abs(n);
  if (a === Infinity) return sign | 0x7c00;
  if (a >= 65520) return sign | 0x7c00; // rounds past the largest half (65504)
  if (a < 2 ** -14) {
    // subnormal: units of 2^-24
    return sign | roundEven(a * 2 ** 24);
  }
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--; // log2 rounding guard
  else if (2 ** (e + 1) <= a) e++;
  let m = roundEven((a / 2 ** e - 1) * 1024);
  if (m === 1024) { m = 0; e++; }
  if (e > 15) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | m;
}
