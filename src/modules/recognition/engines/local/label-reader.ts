import sharp from 'sharp';
import { PSM } from 'tesseract.js';
import { barRegions } from './bar-regions.js';
import type { Box, OcrPool } from './ocr-pool.js';

export type LabelReading = { box: Box; text: string; barcodes: Box[] };

/** Label height OCR reads best at: small name print gets enough pixels, big prices stay cheap. */
const TARGET_HEIGHT = 150;
/** A second, closer look at a label the first reading could not make sense of. */
export const CLOSE_LOOK_HEIGHT = 280;

export type GreyImage = { data: Buffer; width: number; height: number };

/**
 * The channel OCR reads labels from. Green, not luminance: red promotion print on yellow paper is
 * as dark as black print on white there, where luminance leaves it grey on light grey.
 */
export async function greyForLabels(image: Buffer): Promise<GreyImage> {
  const { data, info } = await sharp(image).rotate().toColourspace('srgb').extractChannel('green').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * Reads one label: its crop enlarged to a fixed height, contrast-stretched, its barcode blanked
 * (found, not decoded, here), then OCR'd as one block of text. Boxes come back in image pixels.
 */
export async function readLabel(ocr: OcrPool, grey: GreyImage, box: Box, targetHeight = TARGET_HEIGHT): Promise<LabelReading> {
  const left = Math.max(0, Math.floor(box.x0));
  const top = Math.max(0, Math.floor(box.y0));
  const width = Math.min(grey.width, Math.ceil(box.x1)) - left;
  const height = Math.min(grey.height, Math.ceil(box.y1)) - top;
  if (width < 8 || height < 8) return { box, text: '', barcodes: [] };
  const scale = Math.max(1, Math.min(4, targetHeight / height));
  const { data, info } = await sharp(grey.data, { raw: { width: grey.width, height: grey.height, channels: 1 } })
    .extract({ left, top, width, height })
    .resize(Math.round(width * scale))
    .normalise()
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const bars = barRegions(data, info.width, info.height);
  for (const b of bars) for (let y = b.y0; y < b.y1; y++) data.fill(255, y * info.width + b.x0, y * info.width + b.x1);
  const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } }).png({ compressionLevel: 0 }).toBuffer();
  const toImage = (b: Box): Box => ({ x0: left + b.x0 / scale, y0: top + b.y0 / scale, x1: left + b.x1 / scale, y1: top + b.y1 / scale });
  return { box, text: await ocr.text(png, PSM.SINGLE_BLOCK), barcodes: bars.map(toImage) };
}
