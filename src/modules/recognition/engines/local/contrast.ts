/**
 * sharp's `normalise()` in JavaScript, for 8-bit grey crops. libvips normalises by converting the
 * image to LAB, taking percentiles of its lightness, stretching it and converting back: three
 * passes of float colour maths per crop, ~60 % of the time spent preparing a label for OCR. For a
 * grey image every one of those steps is a function of the grey value alone, so the same result is
 * one histogram and a 256-entry table. The steps below follow libvips's own (its float tables, its
 * percentile rule, its rounding) so OCR is handed the very pixels sharp produced: the recognizer's
 * readings, and its accuracy, stay exactly what they were (test/modules/recognition/local/contrast.test.ts).
 */
export const f32 = Math.fround;
/** C's rintf: to the nearest integer, halves to even. */
export function rint(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
/** libvips's 8-bit sRGB tables (colour/LabQ2sRGB.c): value to linear light, and linear light (256 knots) to value. */
const V2Y = Float32Array.from({ length: 256 }, (_, i) => {
  const f = f32(i / 255);
  return f <= 0.04045 ? f32(f / f32(12.92)) : f32(Math.pow(f32(f32(f + f32(0.055)) / f32(1.055)), 2.4));
});
const Y2V = Int32Array.from({ length: 257 }, (_, i) => {
  const f = f32(Math.min(i, 255) / 255);
  const v = f <= 0.0031308 ? f32(f32(12.92) * f) : f32(f32(1.055) * f32(Math.pow(f, f32(1 / 2.4))) - f32(0.055));
  return rint(f32(255 * v));
});
/** libvips's cube-root table (colour/XYZ2Lab.c), read with linear interpolation as it does. */
const CBRT_N = 100_000;
function cbrtTable(v: number): number {
  const n = f32(v * CBRT_N);
  const i = Math.min(CBRT_N - 2, Math.max(0, Math.trunc(n)));
  const at = (k: number) => {
    const y = f32(k / CBRT_N);
    return y < 0.008856 ? f32(f32(7.787 * y) + f32(16 / 116)) : f32(Math.cbrt(y));
  };
  const t0 = at(i);
  return f32(t0 + f32(f32(n - i) * f32(at(i + 1) - t0)));
}
const X0 = 95.047;
const Z0 = 108.8827;
/** Grey value to libvips's LAB (B_W, sRGB 8-bit, scRGB, XYZ, LAB), in float as it computes. */
export const LAB = Array.from(V2Y, (y) => {
  const v = f32(y * 100);
  const X = f32(f32(f32(0.4124) * v) + f32(f32(0.3576) * v) + f32(f32(0.1805) * v));
  const Y = f32(f32(f32(0.2126) * v) + f32(f32(0.7152) * v) + f32(f32(0.0722) * v));
  const Z = f32(f32(f32(0.0193) * v) + f32(f32(0.1192) * v) + f32(f32(0.9505) * v));
  const cbx = cbrtTable(X / X0);
  const cby = cbrtTable(Y / 100);
  const cbz = cbrtTable(Z / Z0);
  return { L: f32(f32(116 * cby) - 16), a: f32(500 * f32(cbx - cby)), b: f32(200 * f32(cby - cbz)) };
});
const LIGHTNESS = Float32Array.from(LAB, (lab) => lab.L);
/** LAB back to an 8-bit grey value the way libvips does (LAB, XYZ, scRGB, then scRGB2BW's 256 knots and rintf). */
export function toGrey(L: number, a: number, b: number): number {
  let cby: number;
  let Y: number;
  if (L < 8) {
    Y = (L * 100) / 903.3;
    cby = 7.787 * (Y / 100) + 16 / 116;
  } else {
    cby = (L + 16) / 116;
    Y = 100 * cby * cby * cby;
  }
  const tx = a / 500 + cby;
  const X = f32(tx < 0.2069 ? (X0 * (tx - 0.13793)) / 7.787 : X0 * tx * tx * tx) / 100;
  const tz = cby - b / 200;
  const Z = f32(tz < 0.2069 ? (Z0 * (tz - 0.13793)) / 7.787 : Z0 * tz * tz * tz) / 100;
  const Yn = f32(Y) / 100;
  const R = f32(f32(f32(3.240625) * f32(X)) + f32(f32(-1.537208) * f32(Yn)) + f32(f32(-0.498629) * f32(Z)));
  const G = f32(f32(f32(-0.968931) * f32(X)) + f32(f32(1.875756) * f32(Yn)) + f32(f32(0.041518) * f32(Z)));
  const B = f32(f32(f32(0.05571) * f32(X)) + f32(f32(-0.204021) * f32(Yn)) + f32(f32(1.056996) * f32(Z)));
  const lum = f32(f32(f32(0.2126) * R) + f32(f32(0.7152) * G) + f32(f32(0.0722) * B));
  const yf = Math.min(255, Math.max(0, f32(lum * 255)));
  const i = Math.trunc(yf);
  return rint(f32(Y2V[i]! + f32((Y2V[i + 1]! - Y2V[i]!) * f32(yf - i))));
}

/**
 * In place: what `sharp(grey).normalise({ lower, upper })` returns for a one-channel 8-bit image
 * (the lightness between the lower and upper percentiles stretched to the full range).
 */
export function stretchContrast(px: Uint8Array, lower = 1, upper = 99): void {
  const grey = new Uint32Array(256);
  for (let i = 0; i < px.length; i++) grey[px[i]!]!++;
  const hist = new Float64Array(101);
  let top = 0;
  for (let g = 0; g < 256; g++) {
    if (!grey[g]) continue;
    const bin = Math.trunc(LIGHTNESS[g]!);
    hist[bin]! += grey[g]!;
    top = Math.max(top, bin);
  }
  // libvips's percent(): the cumulative histogram scaled to its last index and truncated, then the
  // first bin above percent × bins (or the bin count when none is).
  const bins = top + 1;
  const scale = f32((bins - 1) / px.length);
  const at = (p: number) => {
    let cum = 0;
    for (let b = 0; b < bins; b++) if (Math.trunc(f32(scale * (cum += hist[b]!))) > (p / 100) * bins) return b;
    return bins;
  };
  const lo = at(lower);
  const hi = at(upper);
  if (Math.abs(hi - lo) <= 1) return;
  const f = 100 / (hi - lo);
  const a = -lo * f;
  const lut = new Uint8Array(256);
  for (let g = 0; g < 256; g++) lut[g] = toGrey(f32(f32(f32(f) * LIGHTNESS[g]!) + f32(a)), LAB[g]!.a, LAB[g]!.b);
  for (let i = 0; i < px.length; i++) px[i] = lut[px[i]!]!;
}
