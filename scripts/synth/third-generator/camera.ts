// The photograph: a phone held roughly square to the shelf (a few degrees of yaw, pitch and roll),
// then lens blur or a little shake, uneven light, a glare spot, a colour cast, sensor noise and JPEG.
// The view is one homography from scene pixels to photo pixels; the pixels are resampled through it
// here and the JSON boxes are mapped through the same matrix.
import sharp from 'sharp';
import { apply, compose, invert, type Mat3, type Rect, scale, translate } from './geometry.js';
import type { Rng } from './random.js';

export interface Camera {
  roll: number;
  yaw: number;
  pitch: number;
  /** Focal length as a multiple of the photo width. */
  focal: number;
  shiftX: number;
  shiftY: number;
  blur: number;
  motion: number;
  noise: number;
  chroma: number;
  gain: number;
  gradX: number;
  gradY: number;
  vignette: number;
  glare: { x: number; y: number; r: number; strength: number } | null;
  cast: readonly [number, number, number];
  sharpen: boolean;
  quality: number;
}

const COMMON_WIDTHS = [1280, 1440, 1600, 1920, 2048, 2400, 2560, 3024, 3264, 4000, 4032];

/**
 * Photo size: landscape 4:3 or 16:9 mostly, sometimes portrait. Both sides stay within [minW, maxW]
 * (a portrait photo's long side is its height), so portrait is skipped when the range is too narrow.
 */
export function pickSize(rng: Rng, minW: number, maxW: number): { width: number; height: number } {
  const ratio = rng.weighted([
    [3 / 4, 45],
    [9 / 16, 30],
    [4 / 3, 17],
    [16 / 9, 8],
  ] as const);
  const pickLong = (lo: number, hi: number) => {
    const common = COMMON_WIDTHS.filter((w) => w >= lo && w <= hi);
    const v = common.length > 0 && rng.chance(0.7) ? rng.pick(common) : Math.round(rng.int(lo, hi) / 8) * 8;
    return Math.min(hi, Math.max(lo, v));
  };
  if (ratio > 1 && minW * ratio <= maxW) {
    const height = pickLong(Math.ceil(minW * ratio), maxW);
    return { width: Math.max(minW, Math.round(height / ratio / 2) * 2), height };
  }
  const landscape = ratio > 1 ? 1 / ratio : ratio;
  const width = pickLong(minW, maxW);
  return { width, height: Math.round((width * landscape) / 2) * 2 };
}

export function pickCamera(rng: Rng, width: number): Camera {
  const tri = (a: number) => (rng.next() + rng.next() - 1) * a;
  const res = Math.max(0.7, width / 2400);
  const castKind = rng.pick(['neutral', 'warm', 'cool', 'green', 'magenta'] as const);
  const base: Record<typeof castKind, [number, number, number]> = {
    neutral: [1, 1, 1],
    warm: [1.06, 1.0, 0.86],
    cool: [0.9, 0.99, 1.08],
    green: [0.95, 1.05, 0.93],
    magenta: [1.04, 0.95, 1.03],
  };
  const cast = base[castKind].map((v) => v * rng.float(0.98, 1.02)) as [number, number, number];
  return {
    roll: tri(4),
    yaw: tri(6),
    pitch: tri(5),
    focal: rng.float(0.75, 1.4),
    shiftX: rng.float(-0.02, 0.02),
    shiftY: rng.float(-0.02, 0.02),
    blur: rng.weighted([
      [0, 3],
      [rng.float(0.4, 0.9) * res, 4],
      [rng.float(0.9, 1.7) * res, 2],
    ] as const),
    motion: rng.chance(0.1) ? 2 * rng.int(1, 3) + 1 : 0,
    noise: rng.float(1.5, 7),
    chroma: rng.float(0, 2.5),
    gain: rng.float(0.84, 1.1),
    gradX: rng.float(-0.28, 0.28),
    gradY: rng.float(-0.22, 0.22),
    vignette: rng.float(0, 0.35),
    glare: rng.chance(0.35)
      ? { x: rng.next(), y: rng.next(), r: rng.float(0.06, 0.22), strength: rng.float(0.2, 0.6) }
      : null,
    cast,
    sharpen: rng.chance(0.3),
    quality: rng.int(60, 95),
  };
}

export interface View {
  /** Scene pixels to photo pixels. */
  matrix: Mat3;
  /** Photo pixels per scene pixel at the centre. */
  scale: number;
  /** Axis-aligned part of the scene that lands inside the photo, inset by a margin. */
  safe: Rect;
}

function rotation(cam: Camera): Mat3 {
  const r = (d: number) => (d * Math.PI) / 180;
  const [a, b, c] = [r(cam.yaw), r(cam.pitch), r(cam.roll)];
  const ry: Mat3 = [Math.cos(a), 0, Math.sin(a), 0, 1, 0, -Math.sin(a), 0, Math.cos(a)];
  const rx: Mat3 = [1, 0, 0, 0, Math.cos(b), -Math.sin(b), 0, Math.sin(b), Math.cos(b)];
  const rz: Mat3 = [Math.cos(c), -Math.sin(c), 0, Math.sin(c), Math.cos(c), 0, 0, 0, 1];
  return compose(rz, rx, ry);
}

/** The homography for `cam`, zoomed just enough that the scene covers the whole photo. */
export function view(cam: Camera, width: number, height: number, sceneW: number, sceneH: number): View {
  const fpx = cam.focal * width;
  const R = rotation(cam);
  const P: Mat3 = [R[0], R[1], fpx * R[2], R[3], R[4], fpx * R[5], R[6] / fpx, R[7] / fpx, R[8]];
  const target: [number, number] = [width / 2 + cam.shiftX * width, height / 2 + cam.shiftY * height];
  const build = (s: number): Mat3 => {
    const m0 = compose(P, scale(s), translate(-sceneW / 2, -sceneH / 2));
    const c = apply(m0, [sceneW / 2, sceneH / 2]);
    return compose(translate(target[0] - c[0], target[1] - c[1]), m0);
  };
  const photoCorners: [number, number][] = [
    [0, 0],
    [width, 0],
    [width, height],
    [0, height],
  ];
  let s = 0.6;
  let m = build(s);
  for (let i = 0; i < 400; i++) {
    const inv = invert(m);
    const ok = photoCorners.every((p) => {
      const [x, y] = apply(inv, p);
      return x >= 1 && y >= 1 && x <= sceneW - 2 && y <= sceneH - 2;
    });
    if (ok) break;
    s *= 1.01;
    m = build(s);
  }
  const inv = invert(m);
  const mx = width * 0.035;
  const my = height * 0.035;
  const [tl, tr, br, bl] = [
    [mx, my],
    [width - mx, my],
    [width - mx, height - my],
    [mx, height - my],
  ].map((p) => apply(inv, p as [number, number]));
  const x0 = Math.max(tl[0], bl[0]);
  const x1 = Math.min(tr[0], br[0]);
  const y0 = Math.max(tl[1], tr[1]);
  const y1 = Math.min(bl[1], br[1]);
  return { matrix: m, scale: s, safe: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } };
}

/** Resample the scene through the view, light it, blur it, add noise, encode JPEG. */
export async function photograph(
  scene: Buffer,
  sceneW: number,
  sceneH: number,
  width: number,
  height: number,
  v: View,
  cam: Camera,
  rng: Rng,
  maxKb: number | null,
): Promise<{ jpeg: Buffer; quality: number }> {
  const inv = invert(v.matrix);
  const out = Buffer.alloc(width * height * 3);
  const diag = (width / 2) ** 2 + (height / 2) ** 2;
  const g = cam.glare;
  const gx = g ? g.x * width : 0;
  const gy = g ? g.y * height : 0;
  const gr2 = g ? (g.r * width) ** 2 : 1;
  const [cr, cg, cb] = cam.cast;
  const maxX = sceneW - 1.001;
  const maxY = sceneH - 1.001;
  for (let y = 0; y < height; y++) {
    const py = y + 0.5;
    const rowGain = cam.gain * (1 + cam.gradY * (y / height - 0.5));
    const dy2 = (py - height / 2) ** 2;
    for (let x = 0; x < width; x++) {
      const px = x + 0.5;
      const Z = inv[6] * px + inv[7] * py + inv[8];
      let u = (inv[0] * px + inv[1] * py + inv[2]) / Z - 0.5;
      let w = (inv[3] * px + inv[4] * py + inv[5]) / Z - 0.5;
      u = u < 0 ? 0 : u > maxX ? maxX : u;
      w = w < 0 ? 0 : w > maxY ? maxY : w;
      const x0 = u | 0;
      const y0 = w | 0;
      const fx = u - x0;
      const fy = w - y0;
      const i00 = (y0 * sceneW + x0) * 3;
      const i10 = i00 + 3;
      const i01 = i00 + sceneW * 3;
      const i11 = i01 + 3;
      const w00 = (1 - fx) * (1 - fy);
      const w10 = fx * (1 - fy);
      const w01 = (1 - fx) * fy;
      const w11 = fx * fy;
      const gain =
        rowGain * (1 + cam.gradX * (x / width - 0.5)) * (1 - (cam.vignette * ((px - width / 2) ** 2 + dy2)) / diag);
      let glare = 0;
      if (g) glare = g.strength * Math.exp(-((px - gx) ** 2 + (py - gy) ** 2) / gr2);
      const o = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const s = scene[i00 + c] * w00 + scene[i10 + c] * w10 + scene[i01 + c] * w01 + scene[i11 + c] * w11;
        let val = s * gain * (c === 0 ? cr : c === 1 ? cg : cb);
        val += (255 - val) * glare;
        out[o + c] = val < 0 ? 0 : val > 255 ? 255 : val + 0.5;
      }
    }
  }

  let img = sharp(out, { raw: { width, height, channels: 3 } });
  if (cam.blur >= 0.3) img = img.blur(cam.blur);
  if (cam.motion > 0) {
    const n = cam.motion;
    const kernel = new Array<number>(n * 3).fill(0);
    for (let i = 0; i < n; i++) kernel[n + i] = 1;
    img = img.convolve({ width: n, height: 3, kernel, scale: n });
  }
  if (cam.sharpen) img = img.sharpen({ sigma: 0.8 });
  const soft = await img.raw().toBuffer();

  // Sensor noise: luminance noise, stronger in the shadows, plus a little chroma noise.
  const table = new Float32Array(4096);
  for (let i = 0; i < table.length; i++) table[i] = rng.normal();
  for (let i = 0; i < soft.length; i += 3) {
    const r = rng.uint32();
    const lum = (soft[i] + soft[i + 1] + soft[i + 2]) / 765;
    const n = table[r & 4095] * cam.noise * (1.4 - 0.8 * lum);
    for (let c = 0; c < 3; c++) {
      const chroma = table[(r >>> (12 + c * 6)) & 4095] * cam.chroma;
      const val = soft[i + c] + n + chroma;
      soft[i + c] = val < 0 ? 0 : val > 255 ? 255 : val + 0.5;
    }
  }

  let quality = cam.quality;
  const encode = (q: number) =>
    sharp(soft, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: q, chromaSubsampling: q >= 90 ? '4:4:4' : '4:2:0' })
      .toBuffer();
  let jpeg = await encode(quality);
  while (maxKb !== null && jpeg.length > maxKb * 1024 && quality > 55) {
    quality = Math.max(55, quality - 5);
    jpeg = await encode(quality);
  }
  return { jpeg, quality };
}
