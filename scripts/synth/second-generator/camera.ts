// The phone camera: the flat scene is seen through a homography (mild keystone from a camera not
// square to the shelf, a roll of up to ±4°, the small zoom that keeps the frame filled), then the
// optics and the sensor: Gaussian blur, a glare spot from the store lights, exposure and colour cast,
// vignetting, noise, and JPEG compression. The warp and the light are plain loops over raw pixels;
// blur and encoding are sharp's.
import sharp from 'sharp';
import { type Rect } from './labels.js';
import { type Rng } from './random.js';

type Mat3 = [number, number, number, number, number, number, number, number, number];

const mul = (a: Mat3, b: Mat3): Mat3 => {
  const out = new Array<number>(9) as Mat3;
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) out[r * 3 + c] = a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c];
  return out;
};

function invert(m: Mat3): Mat3 {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h,
    B = -(d * i - f * g),
    C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    A / det,
    -(b * i - c * h) / det,
    (b * f - c * e) / det,
    B / det,
    (a * i - c * g) / det,
    -(a * f - c * d) / det,
    C / det,
    -(a * h - b * g) / det,
    (a * e - b * d) / det,
  ];
}

const applyMat = (m: Mat3, x: number, y: number): [number, number] => {
  const w = m[6] * x + m[7] * y + m[8];
  return [(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w];
};

export type Camera = {
  width: number;
  height: number;
  /** Scene pixel -> photo pixel. */
  matrix: Mat3;
  inverse: Mat3;
  rotationDegrees: number;
  /** Projective terms: relative size change from the centre to the right edge / bottom edge. */
  keystone: { horizontal: number; vertical: number };
  zoom: number;
};

export function project(cam: Camera, x: number, y: number): [number, number] {
  return applyMat(cam.matrix, x, y);
}

/** The photo box (clamped, whole pixels) that holds the projected corners of a scene polygon. */
export function projectBox(cam: Camera, points: [number, number][]): [number, number, number, number] {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (const [x, y] of points) {
    const [px, py] = project(cam, x, y);
    x0 = Math.min(x0, px);
    y0 = Math.min(y0, py);
    x1 = Math.max(x1, px);
    y1 = Math.max(y1, py);
  }
  const cx = (v: number) => Math.max(0, Math.min(cam.width - 1, v));
  const cy = (v: number) => Math.max(0, Math.min(cam.height - 1, v));
  return [Math.floor(cx(x0)), Math.floor(cy(y0)), Math.ceil(cx(x1)), Math.ceil(cy(y1))];
}

export function chooseCamera(width: number, height: number, rng: Rng): Camera {
  const rotationDegrees = Math.max(-4, Math.min(4, rng.gauss(0, 1.8)));
  const kh = rng.float(-0.035, 0.035);
  const kv = rng.float(-0.035, 0.035);
  const cx = width / 2,
    cy = height / 2;
  const t = (rng.float(-0.008, 0.008) * width) | 0;
  const theta = (rotationDegrees * Math.PI) / 180;
  const cos = Math.cos(theta),
    sin = Math.sin(theta);
  // A scene point's weight grows towards one side: that side looks smaller (further away).
  const keystone: Mat3 = [1, 0, 0, 0, 1, 0, (2 * kh) / width, (2 * kv) / height, 1];
  const toCentre: Mat3 = [1, 0, -cx, 0, 1, -cy, 0, 0, 1];
  const rotate: Mat3 = [cos, -sin, 0, sin, cos, 0, 0, 0, 1];
  for (let zoom = 1; ; zoom += 0.005) {
    const back: Mat3 = [zoom, 0, cx + t, 0, zoom, cy, 0, 0, 1];
    const matrix = mul(back, mul(rotate, mul(keystone, toCentre)));
    const inverse = invert(matrix);
    // Zoom until every photo pixel sees the scene (no empty corners).
    const probes: [number, number][] = [];
    for (const fx of [0, 0.5, 1]) for (const fy of [0, 0.5, 1]) probes.push([fx * (width - 1), fy * (height - 1)]);
    const inside = probes.every(([x, y]) => {
      const [sx, sy] = applyMat(inverse, x, y);
      return sx >= 1 && sy >= 1 && sx <= width - 2 && sy <= height - 2;
    });
    if (inside || zoom > 1.4) {
      return { width, height, matrix, inverse, rotationDegrees, keystone: { horizontal: kh, vertical: kv }, zoom };
    }
  }
}

/** The largest upright scene rectangle the photo sees whole (the preimage quad's inner box), inset. */
export function safeRect(cam: Camera, inset: number): Rect {
  const { width: w, height: h, inverse } = cam;
  const [tl, tr, bl, br] = [
    applyMat(inverse, 0, 0),
    applyMat(inverse, w - 1, 0),
    applyMat(inverse, 0, h - 1),
    applyMat(inverse, w - 1, h - 1),
  ];
  return {
    x0: Math.max(tl[0], bl[0]) + inset,
    y0: Math.max(tl[1], tr[1]) + inset,
    x1: Math.min(tr[0], br[0]) - inset,
    y1: Math.min(bl[1], br[1]) - inset,
  };
}

export type Effects = {
  blurSigma: number;
  sharpen: boolean;
  noiseSigma: number;
  jpegQuality: number;
  brightness: number;
  colourCast: [number, number, number];
  vignette: number;
  /** Light falling off from top to bottom (positive: darker at the bottom). */
  lightGradient: number;
  glare: { x: number; y: number; rx: number; ry: number; angle: number; strength: number } | null;
};

export function chooseEffects(width: number, height: number, rng: Rng): Effects {
  const casts: [number, number, number][] = [
    [1, 1, 1],
    [1.06, 1.0, 0.9], // warm tungsten
    [0.94, 1.0, 1.07], // cool daylight
    [0.97, 1.04, 0.95], // green fluorescent
    [1.03, 0.98, 1.0],
  ];
  const base = rng.pick(casts);
  const blur = rng.chance(0.2) ? rng.float(0, 0.3) : rng.float(0.3, 1.2);
  return {
    blurSigma: Math.round(blur * 100) / 100,
    sharpen: blur < 0.6 && rng.chance(0.4),
    noiseSigma: Math.round(rng.float(0.8, 4.5) * 100) / 100,
    jpegQuality: rng.int(60, 95),
    brightness: Math.round(rng.float(0.82, 1.12) * 100) / 100,
    colourCast: base.map((v) => Math.round(v * rng.float(0.98, 1.02) * 1000) / 1000) as [number, number, number],
    vignette: Math.round(rng.float(0, 0.28) * 100) / 100,
    lightGradient: Math.round(rng.float(-0.08, 0.14) * 100) / 100,
    glare: rng.chance(0.6)
      ? {
          x: Math.round(rng.float(0.1, 0.9) * width),
          y: Math.round(rng.float(0.05, 0.95) * height),
          rx: Math.round(rng.float(0.06, 0.22) * width),
          ry: Math.round(rng.float(0.03, 0.12) * width),
          angle: Math.round(rng.float(-30, 30)),
          // Capped so black text under the glare stays darker than mid grey.
          strength: Math.round(rng.float(0.2, 0.5) * 100) / 100,
        }
      : null,
  };
}

/** Scene (raw RGB, same size as the photo) through the camera's homography, bilinear sampling. */
function warp(scene: Buffer, cam: Camera): Buffer {
  const { width: w, height: h, inverse: m } = cam;
  const out = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    // Numerators and denominator are linear in x along a row.
    let nx = m[1] * y + m[2],
      ny = m[4] * y + m[5],
      d = m[7] * y + m[8];
    let o = y * w * 3;
    for (let x = 0; x < w; x++, o += 3, nx += m[0], ny += m[3], d += m[6]) {
      const sx = Math.min(w - 1.001, Math.max(0, nx / d));
      const sy = Math.min(h - 1.001, Math.max(0, ny / d));
      const ix = sx | 0,
        iy = sy | 0;
      const fx = sx - ix,
        fy = sy - iy;
      const i00 = (iy * w + ix) * 3;
      const i10 = i00 + 3;
      const i01 = i00 + w * 3;
      const i11 = i01 + 3;
      const w00 = (1 - fx) * (1 - fy),
        w10 = fx * (1 - fy),
        w01 = (1 - fx) * fy,
        w11 = fx * fy;
      out[o] = scene[i00] * w00 + scene[i10] * w10 + scene[i01] * w01 + scene[i11] * w11 + 0.5;
      out[o + 1] = scene[i00 + 1] * w00 + scene[i10 + 1] * w10 + scene[i01 + 1] * w01 + scene[i11 + 1] * w11 + 0.5;
      out[o + 2] = scene[i00 + 2] * w00 + scene[i10 + 2] * w10 + scene[i01 + 2] * w01 + scene[i11 + 2] * w11 + 0.5;
    }
  }
  return out;
}

/** Exposure, colour cast, vignette, light fall-off, glare and sensor noise, in place. */
function light(pixels: Buffer, w: number, h: number, fx: Effects, rng: Rng): void {
  // A table of normal deviates indexed by a fast xorshift stream: millions of draws stay cheap.
  const table = new Float32Array(4096);
  for (let i = 0; i < table.length; i++) table[i] = rng.gauss();
  let s = rng.uint32() | 1;
  const cx = w / 2,
    cy = h / 2,
    rmax2 = cx * cx + cy * cy;
  const g = fx.glare;
  const ga = g ? (g.angle * Math.PI) / 180 : 0;
  const gc = Math.cos(ga),
    gs = Math.sin(ga);
  const [cr, cg, cb] = fx.colourCast;
  for (let y = 0; y < h; y++) {
    const rowGain = fx.brightness * (1 - fx.lightGradient * (y / h - 0.5));
    for (let x = 0; x < w; x++) {
      const dx = x - cx,
        dy = y - cy;
      const gain = rowGain * (1 - fx.vignette * ((dx * dx + dy * dy) / rmax2));
      let glare = 0;
      if (g) {
        const ex = x - g.x,
          ey = y - g.y;
        const u = (ex * gc + ey * gs) / g.rx,
          v = (-ex * gs + ey * gc) / g.ry;
        const d2 = u * u + v * v;
        if (d2 < 9) glare = g.strength * Math.exp(-d2 / 2);
      }
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      const lum = table[s & 4095] * fx.noiseSigma;
      const chroma = table[(s >>> 12) & 4095] * fx.noiseSigma * 0.35;
      const o = (y * w + x) * 3;
      const r = pixels[o] * gain * cr,
        gr = pixels[o + 1] * gain * cg,
        b = pixels[o + 2] * gain * cb;
      pixels[o] = Math.max(0, Math.min(255, r + (255 - r) * glare + lum + chroma + 0.5));
      pixels[o + 1] = Math.max(0, Math.min(255, gr + (255 - gr) * glare + lum + 0.5));
      pixels[o + 2] = Math.max(0, Math.min(255, b + (255 - b) * glare + lum - chroma + 0.5));
    }
  }
}

/**
 * Takes the photo. With `maxBytes`, re-encodes at lower quality (not below 60) until the JPEG fits,
 * and reports the quality actually used.
 */
export async function photograph(
  scene: Buffer,
  cam: Camera,
  fx: Effects,
  rng: Rng,
  maxBytes?: number,
): Promise<{ jpeg: Buffer; quality: number }> {
  const { width, height } = cam;
  const raw = { raw: { width, height, channels: 3 as const } };
  let pixels = warp(scene, cam);
  if (fx.blurSigma >= 0.3 || fx.sharpen) {
    let img = sharp(pixels, raw);
    if (fx.blurSigma >= 0.3) img = img.blur(fx.blurSigma);
    // Phones sharpen what they capture; a light unsharp mask on the sharper shots.
    if (fx.sharpen) img = img.sharpen({ sigma: 0.7, m1: 0.5, m2: 1.5 });
    pixels = await img.raw().toBuffer();
  }
  light(pixels, width, height, fx, rng);
  let quality = fx.jpegQuality;
  for (;;) {
    const jpeg = await sharp(pixels, raw).jpeg({ quality, chromaSubsampling: '4:2:0' }).toBuffer();
    if (!maxBytes || jpeg.length <= maxBytes || quality <= 60) return { jpeg, quality };
    quality = Math.max(60, quality - 4);
  }
}
