import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bf16ToNumber, halfToNumber } from '../../src/tensor/index.js';
import { numberToBf16, numberToHalf } from '../../src/client/half-float.js';

const isNaNBits = (h: number, expBits: number, mantMask: number) => (h & expBits) === expBits && (h & mantMask) !== 0;

test('every FP16 bit pattern survives number and back', () => {
  for (let h = 0; h < 0x10000; h++) {
    if (isNaNBits(h, 0x7c00, 0x3ff)) assert.ok(Number.isNaN(halfToNumber(numberToHalf(halfToNumber(h)))));
    else assert.equal(numberToHalf(halfToNumber(h)), h, `0x${h.toString(16)}`);
  }
});

test('every BF16 bit pattern survives number and back', () => {
  for (let h = 0; h < 0x10000; h++) {
    if (isNaNBits(h, 0x7f80, 0x7f)) assert.ok(Number.isNaN(bf16ToNumber(numberToBf16(bf16ToNumber(h)))));
    else assert.equal(numberToBf16(bf16ToNumber(h)), h, `0x${h.toString(16)}`);
  }
});

test('values between halves round to nearest even; past the range to infinity', () => {
  assert.equal(numberToHalf(1 + 2 ** -11), 0x3c00); // halfway between 1 and the next half: even (1)
  assert.equal(numberToHalf(1 + 3 * 2 ** -11), 0x3c02);
  assert.equal(numberToHalf(70000), 0x7c00);
  assert.equal(numberToHalf(-70000), 0xfc00);
  assert.equal(numberToBf16(1 + 2 ** -8), 0x3f80);
});
