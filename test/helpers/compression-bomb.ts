/**
 * Decompression bombs built in milliseconds: about 1 KB of compressed input per MiB of zeros.
 * gzip: members of 1 MiB of zeros, concatenated (a gzip stream may hold several members and
 * inflates to their concatenation). deflate (zlib format): one compressed MiB of zeros ending in a
 * full flush (byte-aligned, no back-reference across it), repeated, then a final empty block and the
 * Adler-32 of all those zeros, so the stream is valid to its end.
 */
import { constants, deflateRawSync, gzipSync } from 'node:zlib';

const MIB = 1 << 20;
const ADLER_MOD = 65521;

/** gzip that inflates to `mib` MiB of zeros. */
export function gzipBomb(mib: number): Buffer {
  const member = gzipSync(Buffer.alloc(MIB), { level: 9 });
  return Buffer.concat(Array.from({ length: mib }, () => member));
}

/** zlib-format deflate that inflates to `mib` MiB of zeros. */
export function deflateBomb(mib: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(MIB), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const last = deflateRawSync(Buffer.alloc(0));
  // Adler-32 of n zero bytes: A stays 1, B gains 1 per byte.
  const b = (mib % ADLER_MOD) * (MIB % ADLER_MOD) % ADLER_MOD;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((b << 16) | 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: mib }, () => block), last, adler]);
}
