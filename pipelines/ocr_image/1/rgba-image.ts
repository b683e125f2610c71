/** A decoded image: 8-bit RGBA, row-major, width * height * 4 bytes. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}
