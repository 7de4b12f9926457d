import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp, { type Sharp } from 'sharp';
import { prepareZXingModule, readBarcodes, type ReadInputBarcodeFormat } from 'zxing-wasm/reader';
import { normalizeGtin } from '../../catalogue-matcher.js';
import { stretchContrast } from './contrast.js';
import type { Box } from './ocr-pool.js';
import type { GreyImage } from './photo.js';
import { checkpoint } from './photo-stop.js';

const require = createRequire(import.meta.url);

let ready: Promise<unknown> | undefined;
/** The wasm comes from node_modules; zxing-wasm would otherwise fetch it from a CDN. */
function ensureModule(): Promise<unknown> {
  ready ??= (async () => {
    const wasm = readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm'));
    return prepareZXingModule({
      overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer },
      fireImmediately: true,
    });
  })();
  return ready;
}

export const PRODUCT_FORMATS: ReadInputBarcodeFormat[] = ['EAN-13', 'EAN-8', 'UPC-A', 'UPC-E', 'Code128', 'QRCode'];

export type FoundBarcode = {
  text: string;
  gtin: string | null;
  format: string;
  box: Box;
  /** Scan lines across a linear symbol that read this same value (zxing's lineCount; 0 for 2D symbols). */
  lines: number;
};

/**
 * A way of looking: the scale, other sharp operations, whether to stretch the contrast (sharp's
 * normalise()), and whether the decoder may try harder (it then also reads what is not there).
 */
type Variant = { scale: number; tweak?: (s: Sharp) => Sharp; normalise?: boolean; strict?: boolean };

async function greyImageData(image: Buffer | GreyImage, region: Box | null, v: Variant) {
  let img = Buffer.isBuffer(image)
    ? sharp(image)
    : sharp(image.data, { raw: { width: image.width, height: image.height, channels: 1 } });
  if (region)
    img = img.extract({ left: region.x0, top: region.y0, width: region.x1 - region.x0, height: region.y1 - region.y0 });
  img = img.greyscale();
  if (v.scale !== 1) {
    const w = region
      ? region.x1 - region.x0
      : Buffer.isBuffer(image)
        ? (await sharp(image).metadata()).width!
        : image.width;
    img = img.resize(Math.max(16, Math.round(w * v.scale)));
  }
  if (v.tweak) img = v.tweak(img);
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  // Where sharp's pipeline would normalise (after resizing and sharpening), at a fraction of its cost.
  if (v.normalise) stretchContrast(data);
  const rgba = new Uint8ClampedArray(info.width * info.height * 4);
  for (let i = 0; i < info.width * info.height; i++) {
    rgba[i * 4] = rgba[i * 4 + 1] = rgba[i * 4 + 2] = data[i]!;
    rgba[i * 4 + 3] = 255;
  }
  return { data: rgba, width: info.width, height: info.height, colorSpace: 'srgb' } as ImageData;
}

async function scan(
  image: Buffer | GreyImage,
  region: Box | null,
  v: Variant,
  maxSymbols: number,
  upright = false,
): Promise<FoundBarcode[]> {
  const results = await readBarcodes(await greyImageData(image, region, v), {
    formats: PRODUCT_FORMATS,
    tryHarder: !v.strict,
    // A region already found to hold upright dark bars needs neither turning nor inverting.
    tryRotate: !upright,
    tryInvert: !upright,
    tryDownscale: !upright,
    maxNumberOfSymbols: maxSymbols,
  });
  const ox = region?.x0 ?? 0;
  const oy = region?.y0 ?? 0;
  return results
    .filter((r) => r.isValid && r.text)
    .map((r) => {
      const xs = [r.position.topLeft.x, r.position.topRight.x, r.position.bottomLeft.x, r.position.bottomRight.x].map(
        (x) => ox + x / v.scale,
      );
      const ys = [r.position.topLeft.y, r.position.topRight.y, r.position.bottomLeft.y, r.position.bottomRight.y].map(
        (y) => oy + y / v.scale,
      );
      return {
        text: r.text,
        gtin: normalizeGtin(r.text),
        format: r.format,
        box: { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) },
        lines: r.lineCount,
      };
    });
}

/**
 * A close-up of one barcode (a phone photo of a pack): several scales and contrasts, and the value
 * most variants agree on, since tryHarder can misread a blurred symbol once (or more). Each reading
 * counts as many times as the scan lines across the symbol that agreed on it (zxing's lineCount): a
 * misread is a few lines' slip, a sound reading is the same along much of the bars.
 */
export async function readCloseUp(image: Buffer): Promise<FoundBarcode | null> {
  await ensureModule();
  const variants: Variant[] = [
    { scale: 1 },
    { scale: 0.5 },
    { scale: 1, tweak: (s) => s.sharpen(), normalise: true },
    { scale: 1.5, tweak: (s) => s.sharpen() },
    { scale: 0.75, tweak: (s) => s.blur(1) },
    { scale: 0.35 },
    { scale: 2, normalise: true },
    { scale: 0.6, tweak: (s) => s.sharpen(), normalise: true },
    // Strict looks, slightly blurred or enlarged: the decoder without tryHarder reads less but
    // does not invent. On the close-ups' tune half (even rows) tryHarder misread a UPC-A as another
    // valid EAN-13 while every strict look that read it read it right, so theirs count double.
    { scale: 1, tweak: (s) => s.blur(1), strict: true },
    { scale: 2, strict: true },
    { scale: 1.5, tweak: (s) => s.blur(1), strict: true },
    { scale: 2, tweak: (s) => s.blur(1), strict: true },
  ];
  const votes = new Map<string, { n: number; found: FoundBarcode }>();
  const look = async (v: Variant) => {
    checkpoint();
    for (const found of await scan(image, null, v, 4)) {
      const key = found.gtin ?? found.text;
      const entry = votes.get(key) ?? { n: 0, found };
      entry.n += Math.max(1, found.lines) * (v.strict ? 2 : 1);
      votes.set(key, entry);
    }
  };
  for (const v of variants) await look(v);
  // Nothing read at all: one more look with the contrast equalised locally (CLAHE), for bars lit
  // unevenly or printed pale, paid for only by photos that read nothing otherwise.
  if (votes.size === 0) {
    const meta = await sharp(image).metadata();
    if ((meta.width ?? 0) >= CLAHE_WINDOW * 2 && (meta.height ?? 0) >= CLAHE_WINDOW * 2)
      await look({ scale: 1, tweak: (s) => s.clahe({ width: CLAHE_WINDOW, height: CLAHE_WINDOW }) });
  }
  const best = [...votes.values()].sort((a, b) => b.n - a.n)[0];
  return best?.found ?? null;
}

/** CLAHE's tile, in pixels: a few modules of a close-up's symbol wide. */
const CLAHE_WINDOW = 32;

/**
 * Every barcode in a shelf photo: the whole image, then overlapping tiles at full and double
 * resolution, since a shelf label's barcode is a few dozen pixels wide. Duplicates collapse.
 */
export async function readShelf(
  image: Buffer | GreyImage,
  width: number,
  height: number,
  tiles = 3,
): Promise<FoundBarcode[]> {
  await ensureModule();
  const found: FoundBarcode[] = [...(await scan(image, null, { scale: 1 }, 64))];
  const tw = Math.ceil(width / tiles);
  const th = Math.ceil(height / tiles);
  for (let ty = 0; ty < tiles; ty++) {
    for (let tx = 0; tx < tiles; tx++) {
      checkpoint();
      const region = {
        x0: Math.max(0, tx * tw - tw / 4) | 0,
        y0: Math.max(0, ty * th - th / 4) | 0,
        x1: Math.min(width, (tx + 1) * tw + tw / 4) | 0,
        y1: Math.min(height, (ty + 1) * th + th / 4) | 0,
      };
      found.push(...(await scan(image, region, { scale: 2 }, 32)));
    }
  }
  const unique = new Map<string, FoundBarcode>();
  for (const f of found) {
    const key = `${f.gtin ?? f.text}@${Math.round((f.box.x0 + f.box.x1) / 100)},${Math.round((f.box.y0 + f.box.y1) / 100)}`;
    if (!unique.has(key)) unique.set(key, f);
  }
  return [...unique.values()];
}

/**
 * Barcodes where a label's bars were seen (see bar-regions.ts), each region enlarged twice: a
 * label's symbol in a wide photo has about one pixel per module, too few for the whole-image pass.
 */
export async function readRegions(grey: GreyImage, regions: Box[], closer = false): Promise<FoundBarcode[]> {
  await ensureModule();
  const found: FoundBarcode[] = [];
  for (const r of regions) {
    checkpoint();
    const pad = (r.y1 - r.y0) * 0.5;
    const region = {
      x0: Math.max(0, Math.floor(r.x0 - pad)),
      y0: Math.max(0, Math.floor(r.y0 - pad)),
      x1: Math.min(grey.width, Math.ceil(r.x1 + pad)),
      y1: Math.min(grey.height, Math.ceil(r.y1 + pad)),
    };
    if (region.x1 - region.x0 < 8 || region.y1 - region.y0 < 4) continue;
    // A small symbol (about a pixel a module) is enlarged four times and sharpened, and may be
    // tilted or inverted: it is only looked at this closely where nothing else named its label.
    const variant: Variant = closer
      ? { scale: 4, tweak: (s) => s.sharpen({ sigma: 1 }), normalise: true }
      : { scale: 2, normalise: true };
    found.push(...(await scan(grey, region, variant, 1, !closer)));
  }
  return found;
}
