// Barcodes come from bwip-js at a whole number of pixels per module (1-3 px in the flat scene, so the
// final photo has 1 to ~3 px modules after the camera's slight zoom): the label layout reserves the
// exact pixel box, and the PNG is pasted at integer offsets so bars stay crisp until the camera warp.
import bwipjs from 'bwip-js';
import sharp from 'sharp';

export type BarcodeSpec = {
  upc: string;
  /** Pixels per module (1, 2 or 3). */
  module: number;
  /** Bar height in pixels (without the digits). */
  barHeight: number;
  /** Print the human-readable digits under the bars. */
  digits: boolean;
  /** The white window behind the bars ("ffffff"), or the label colour when it is light enough. */
  background: string;
};

export type BarcodeImage = { png: Buffer; width: number; height: number };

const cache = new Map<string, BarcodeImage>();
const PT_PER_MM = 72 / 25.4;

/** bwip-js symbology for a GTIN: 12 digits are UPC-A, 13 are EAN-13. */
export const symbologyOf = (upc: string) => (upc.length === 12 ? 'upca' : 'ean13');

export async function renderBarcode(spec: BarcodeSpec): Promise<BarcodeImage> {
  const key = JSON.stringify(spec);
  const hit = cache.get(key);
  if (hit) return hit;
  const png = await bwipjs.toBuffer({
    bcid: symbologyOf(spec.upc),
    text: spec.upc,
    scale: spec.module,
    // bwip's height is in millimetres at 72 dpi, multiplied by the scale.
    height: spec.barHeight / PT_PER_MM / spec.module,
    includetext: spec.digits,
    textxalign: 'center',
    backgroundcolor: spec.background,
    // Quiet zones (in modules) so a reader finds the symbol's edges, and a little air above/below.
    paddingleft: spec.digits ? 4 : 10,
    paddingright: 8,
    paddingtop: 2,
    paddingbottom: 2,
  });
  const meta = await sharp(png).metadata();
  const image = { png, width: meta.width!, height: meta.height! };
  cache.set(key, image);
  return image;
}

/** The size bwip-js will produce for a spec, measured once per (symbology, module, digits). */
export async function barcodeSize(spec: Omit<BarcodeSpec, 'background'>): Promise<{ width: number; height: number }> {
  const image = await renderBarcode({ ...spec, background: 'ffffff' });
  return { width: image.width, height: image.height };
}
