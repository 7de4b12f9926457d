import { f32, LAB, rint, toGrey } from './contrast.js';

/**
 * sharp's `sharpen({ sigma: 1.5 })` in JavaScript, for 8-bit grey crops (the close look at a label).
 * libvips sharpens the lightness of a LabS image: it converts the crop to LabS and back, two passes of
 * float colour maths that were two thirds of the close look's preparation (about 37 ms a photo, where
 * the OCR of a first-pass sheet is about 400). For a grey image the way there is a function of the grey
 * value, the blur is a 7-tap integer mask, and the way back depends on the new lightness and a handful
 * of (a, b) pairs only: so tables, two integer passes and one table lookup a pixel. Each step follows
 * libvips 8.18 (create/gaussmat.c, convolution/convi.c and sharpen.c, colour/Lab2LabS.c and LabS2Lab.c)
 * with sharp's defaults (m1 1, m2 2, x1 2, y2 10, y3 20), so OCR is handed the very pixels sharp gave
 * it and every reading stays what it was (test/modules/recognition/local/sharpen.test.ts).
 */
const SIGMA = 1.5;
const M1 = 1;
const M2 = 2;
const X1 = 2;
const Y2 = 10;
const Y3 = 20;

/** vips_gaussmat(sigma, min_ampl 0.1, separable, integer): the one-row mask and its scale (its sum). */
function gaussMask(sigma: number, minAmpl: number): { mask: number[]; scale: number } {
  const sig2 = 2 * sigma * sigma;
  let x = 0;
  for (; x < Math.max(0, Math.min(8 * sigma, 10_000)); x++) if (Math.exp(-(x * x) / sig2) < minAmpl) break;
  const width = 2 * Math.max(x - 1, 0) + 1;
  const mask = Array.from({ length: width }, (_, i) => rint(20 * Math.exp(-((i - (width >> 1)) ** 2) / sig2)));
  return { mask, scale: mask.reduce((a, b) => a + b, 0) || 1 };
}
const { mask: MASK, scale: SCALE } = gaussMask(SIGMA, 0.1);
if (MASK.length !== 7) throw new Error(`sharpen: a ${MASK.length}-tap mask where the passes are written for 7`);

/** Grey value to LabS (Lab2LabS: scaled, then C's float-to-short conversion, which truncates). */
const toShort = (v: number, lo: number) => Math.trunc(Math.min(32767, Math.max(lo, v)));
const L_OF = Int32Array.from(LAB, (lab) => toShort(lab.L * (32767 / 100), 0));
const A_OF = Int32Array.from(LAB, (lab) => toShort(lab.a * 256, -32768));
const B_OF = Int32Array.from(LAB, (lab) => toShort(lab.b * 256, -32768));
/** The few (a, b) pairs grey values have in LabS, and which one each grey value has. */
const PAIRS = [...new Set(LAB.map((_, g) => `${A_OF[g]},${B_OF[g]}`))].map(
  (k) => k.split(',').map(Number) as [number, number],
);
const PAIR_OF = Uint8Array.from(LAB, (_, g) => PAIRS.findIndex(([a, b]) => a === A_OF[g] && b === B_OF[g]));
/** LabS back to grey (LabS2Lab, then the LAB route contrast.ts follows), filled in as lightness values turn up. */
const BACK = PAIRS.map(() => new Int16Array(32768).fill(-1));
function back(L: number, pair: number): number {
  const table = BACK[pair]!;
  let v = table[L]!;
  if (v < 0) {
    const [a, b] = PAIRS[pair]!;
    v = table[L] = toGrey(f32(L / (32767 / 100)), f32(a / 256), f32(b / 256));
  }
  return v;
}
/** sharpen.c's table, indexed with the lightness difference + 32768, as libvips indexes it. */
const LUT = Int32Array.from({ length: 65536 }, (_, i) => {
  const v = (i - 32767) / 327.67;
  let y = v < -X1 ? (v + X1) * M2 + -X1 * M1 : v < X1 ? v * M1 : (v - X1) * M2 + X1 * M1;
  y = Math.min(Y2, Math.max(-Y3, y));
  return rint(y * 327.67);
});

/**
 * The two passes of convi's C path (the mask along rows, then down columns): the mask over each pixel
 * and its neighbours, the image's edge pixels repeated beyond it, then (sum + scale / 2) / scale
 * (never negative, as lightness is not, so C's integer division is a floor). Written out for the 7-tap
 * mask of sigma 1.5: they run over every pixel of a close look.
 */
const [K0, K1, K2, K3, K4, K5, K6] = MASK as [number, number, number, number, number, number, number];
const ROUNDING = SCALE >> 1;
function acrossRows(src: Int32Array, dst: Int32Array, width: number, height: number) {
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const at = (x: number) => src[row + Math.min(width - 1, Math.max(0, x))]!;
    for (let x = 0; x < width; x++) {
      const p = row + x;
      const sum =
        x >= 3 && x < width - 3
          ? K0 * src[p - 3]! +
            K1 * src[p - 2]! +
            K2 * src[p - 1]! +
            K3 * src[p]! +
            K4 * src[p + 1]! +
            K5 * src[p + 2]! +
            K6 * src[p + 3]!
          : K0 * at(x - 3) +
            K1 * at(x - 2) +
            K2 * at(x - 1) +
            K3 * at(x) +
            K4 * at(x + 1) +
            K5 * at(x + 2) +
            K6 * at(x + 3);
      dst[p] = Math.floor((sum + ROUNDING) / SCALE);
    }
  }
}
function downColumns(src: Int32Array, dst: Int32Array, width: number, height: number) {
  const row = (y: number) => Math.min(height - 1, Math.max(0, y)) * width;
  for (let y = 0; y < height; y++) {
    const r0 = row(y - 3),
      r1 = row(y - 2),
      r2 = row(y - 1),
      r3 = y * width,
      r4 = row(y + 1),
      r5 = row(y + 2),
      r6 = row(y + 3);
    for (let x = 0; x < width; x++) {
      const sum =
        K0 * src[r0 + x]! +
        K1 * src[r1 + x]! +
        K2 * src[r2 + x]! +
        K3 * src[r3 + x]! +
        K4 * src[r4 + x]! +
        K5 * src[r5 + x]! +
        K6 * src[r6 + x]!;
      dst[r3 + x] = Math.floor((sum + ROUNDING) / SCALE);
    }
  }
}

/** In place: what `sharp(grey).sharpen({ sigma: 1.5 }).toColourspace('b-w')` returns for a one-channel 8-bit image. */
export function sharpenGrey(px: Uint8Array, width: number, height: number): void {
  const n = width * height;
  const L = new Int32Array(n);
  for (let i = 0; i < n; i++) L[i] = L_OF[px[i]!]!;
  const across = new Int32Array(n);
  const blurred = new Int32Array(n);
  acrossRows(L, across, width, height);
  downColumns(across, blurred, width, height);
  for (let i = 0; i < n; i++) {
    const v1 = L[i]!;
    const out = Math.min(32767, Math.max(0, v1 + LUT[v1 - blurred[i]! + 32768]!));
    px[i] = back(out, PAIR_OF[px[i]!]!);
  }
}
