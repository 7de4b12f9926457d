import sharp from 'sharp';
import { decodePhoto } from '../photo.js';
import type { Box } from '../ocr-types.js';

/** Decoded pixels, interleaved (HWC), 8 bits a channel: sharp's `.raw()` output, or a Photo (photo.ts) with channels 3. */
export type RawImage = { data: Uint8Array; width: number; height: number; channels: number };

/**
 * Any image the PaddleOCR module accepts, as upright 8-bit RGB. An encoded file (JPEG, PNG…) is
 * decoded once with its EXIF orientation applied, as decodePhoto does, so that boxes are in the
 * same frame as the rest of the recognizer's; raw pixels are taken as they are (grey and RGBA are
 * turned into RGB, because both models read three channels).
 */
export async function toRgb(image: RawImage | Buffer): Promise<RawImage> {
  if (Buffer.isBuffer(image)) {
    const photo = await decodePhoto(image);
    return { data: photo.rgb, width: photo.width, height: photo.height, channels: 3 };
  }
  if (image.channels === 3) return image;
  const { data, width, height, channels } = image;
  if (channels !== 1 && channels !== 4) throw new Error(`paddle-ocr: ${channels} channels: expected 1, 3 or 4`);
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0, p = 0, q = 0; i < width * height; i++, p += channels, q += 3) {
    const r = data[p]!;
    rgb[q] = r;
    rgb[q + 1] = channels === 1 ? r : data[p + 1]!;
    rgb[q + 2] = channels === 1 ? r : data[p + 2]!;
  }
  return { data: rgb, width, height, channels: 3 };
}

/** Whole-image resize through libvips (SIMD, one call per photo): used for the detector's input. */
export async function resizeRgb(image: RawImage, width: number, height: number): Promise<RawImage> {
  if (width === image.width && height === image.height) return image;
  const { data, info } = await sharp(image.data, {
    raw: { width: image.width, height: image.height, channels: image.channels as 3 },
  })
    .resize(width, height, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** For each output sample along one axis, the source indices it reads and their weights. */
type Taps = { start: Int32Array; count: Int32Array; weights: Float32Array; stride: number };

/**
 * Triangle-filter taps from the source span [from, from + length) onto `out` samples, widened by
 * the scale when shrinking (as Pillow's antialiased resize does): a plain bilinear shrink of a
 * 200 px tall price line to 48 px would skip three rows in four and alias thin strokes away.
 * Taps outside the image are dropped and the rest renormalised, which repeats no border.
 */
function taps(from: number, length: number, out: number, size: number): Taps {
  const scale = length / out;
  const support = Math.max(1, scale);
  const stride = Math.ceil(support) * 2 + 2;
  const start = new Int32Array(out);
  const count = new Int32Array(out);
  const weights = new Float32Array(out * stride);
  for (let i = 0; i < out; i++) {
    const centre = from + (i + 0.5) * scale;
    const lo = Math.max(0, Math.floor(centre - support));
    const hi = Math.min(size, Math.ceil(centre + support));
    let total = 0;
    let n = 0;
    for (let j = lo; j < hi && n < stride; j++, n++) {
      const w = Math.max(0, 1 - Math.abs((j + 0.5 - centre) / support));
      weights[i * stride + n] = w;
      total += w;
    }
    if (total === 0) {
      // A span wholly outside the image (an unclipped box at the border): nearest pixel.
      const j = Math.min(size - 1, Math.max(0, Math.floor(centre)));
      start[i] = j;
      count[i] = 1;
      weights[i * stride] = 1;
      continue;
    }
    for (let k = 0; k < n; k++) weights[i * stride + k]! /= total;
    start[i] = lo;
    count[i] = n;
  }
  return { start, count, weights, stride };
}

/**
 * One region of an RGB image resampled to width x height (separable, antialiased), as RGB bytes.
 * Plain loops over the decoded photo rather than a sharp pipeline per crop: a photo has a hundred
 * lines or so, each only 48 rows once resampled, and the photo stays decoded once.
 */
export function resampleRegion(image: RawImage, region: Box, width: number, height: number): Uint8Array {
  const { data, width: W, height: H } = image;
  const cols = taps(region.x0, region.x1 - region.x0, width, W);
  const rows = taps(region.y0, region.y1 - region.y0, height, H);
  // Only the source rows some output row reads are filtered horizontally.
  let rowLo = H;
  let rowHi = 0;
  for (let i = 0; i < height; i++) {
    rowLo = Math.min(rowLo, rows.start[i]!);
    rowHi = Math.max(rowHi, rows.start[i]! + rows.count[i]!);
  }
  const mid = new Float32Array((rowHi - rowLo) * width * 3);
  for (let y = rowLo; y < rowHi; y++) {
    const srcRow = y * W * 3;
    const midRow = (y - rowLo) * width * 3;
    for (let x = 0; x < width; x++) {
      let r = 0,
        g = 0,
        b = 0;
      const base = x * cols.stride;
      let p = srcRow + cols.start[x]! * 3;
      for (let k = 0; k < cols.count[x]!; k++, p += 3) {
        const w = cols.weights[base + k]!;
        r += data[p]! * w;
        g += data[p + 1]! * w;
        b += data[p + 2]! * w;
      }
      const q = midRow + x * 3;
      mid[q] = r;
      mid[q + 1] = g;
      mid[q + 2] = b;
    }
  }
  const out = new Uint8Array(width * height * 3);
  const line = width * 3;
  // Accumulate in floats, then round once: adding weighted bytes straight into `out` would truncate per tap.
  const acc = new Float32Array(line);
  for (let y = 0; y < height; y++) {
    acc.fill(0);
    const base = y * rows.stride;
    const first = rows.start[y]! - rowLo;
    for (let k = 0; k < rows.count[y]!; k++) {
      const w = rows.weights[base + k]!;
      const m = (first + k) * line;
      for (let i = 0; i < line; i++) acc[i]! += mid[m + i]! * w;
    }
    const o = y * line;
    for (let i = 0; i < line; i++) out[o + i] = acc[i]! + 0.5;
  }
  return out;
}

/** An RGB image turned a quarter anticlockwise (numpy's rot90, as PaddleOCR turns vertical text). */
export function rotateLeft(rgb: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(rgb.length);
  // Source (x, y) lands at (y, width - 1 - x) in the height x width result.
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const s = (y * width + x) * 3;
      const d = ((width - 1 - x) * height + y) * 3;
      out[d] = rgb[s]!;
      out[d + 1] = rgb[s + 1]!;
      out[d + 2] = rgb[s + 2]!;
    }
  }
  return out;
}
