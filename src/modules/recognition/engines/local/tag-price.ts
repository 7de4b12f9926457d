import sharp, { type Sharp } from 'sharp';
import { PSM } from 'tesseract.js';
import { stretchContrast } from './contrast.js';
import { darkComponents, tallestGlyphRow } from './glyphs.js';
import { pgm, type Box, type OcrPool } from './ocr-pool.js';
import { checkpoint } from './photo-stop.js';

export type TagPrice = { value: number; text: string; confidence: number };

/** A price as printed: 2.49, 2,49, £1.99, 1,99 €, 198. */
export function parsePriceToken(raw: string): number | null {
  const cleaned = raw
    .replace(/[Oo]/g, '0')
    .replace(/[lI|]/g, '1')
    .replace(/[^\d.,]/g, '');
  const m = /^(\d{1,5})(?:[.,](\d{2}))?$/.exec(cleaned);
  if (!m) return null;
  const value = Number(m[2] ? `${m[1]}.${m[2]}` : m[1]);
  return value > 0 ? value : null;
}

/**
 * Reads the price on one price-tag crop. Shelf tags print the price far larger than anything
 * else, so we find the row of the tallest glyphs with connected components, then OCR only that
 * row as a single line of digits.
 */
export async function readTagPrice(ocr: OcrPool, image: Buffer | Sharp, box: Box): Promise<TagPrice | null> {
  const src = Buffer.isBuffer(image) ? sharp(image) : image.clone();
  const meta = await src.metadata();
  const left = Math.max(0, Math.floor(box.x0));
  const top = Math.max(0, Math.floor(box.y0));
  const width = Math.min(meta.width! - left, Math.ceil(box.x1 - box.x0));
  const height = Math.min(meta.height! - top, Math.ceil(box.y1 - box.y0));
  if (width < 8 || height < 8) return null;
  const scale = Math.max(1, Math.min(8, 240 / height));
  const W = Math.round(width * scale);
  const H = Math.round(height * scale);
  const grey = await src
    .extract({ left, top, width, height })
    .resize(W, H, { kernel: 'lanczos3' })
    .greyscale()
    .raw()
    .toBuffer();
  // sharp's normalise(), which its pipeline would apply last as here, for a fraction of the cost.
  stretchContrast(grey);
  // Ink thickness decides between 8 and 9 or 1 and nothing: read at several thresholds and vote,
  // unless a threshold already reads a price tesseract is sure of (then the others agree anyway).
  const readings: TagPrice[] = [];
  for (const threshold of THRESHOLDS) {
    checkpoint();
    const reading = await readAtThreshold(ocr, grey, W, H, threshold);
    if (reading) readings.push(reading);
    if (reading && reading.confidence >= SURE) return reading;
  }
  if (readings.length === 0) return null;
  const votes = new Map<number, number>();
  for (const r of readings) votes.set(r.value, (votes.get(r.value) ?? 0) + r.confidence);
  const most = Math.max(...votes.values());
  return readings.find((r) => votes.get(r.value) === most)!;
}

// Four ink thresholds, each reading's vote weighted by tesseract's confidence in it. Chosen on the
// real tags of ../shared/datasets: three thresholds counted equally read 123 of 144 right, these
// four weighted by confidence 128 (neighbouring choices 125 to 129), so the figure flatters it.
const THRESHOLDS = [80, 95, 110, 125];
// A reading this confident ends the vote early: on the real tags, exiting at 95 reads the same 128 of
// 144 right with 296 OCR calls instead of 576 (at 90: 124, at 80: 123), so it halves the cost for nothing.
const SURE = 95;

async function readAtThreshold(
  ocr: OcrPool,
  grey: Buffer,
  W: number,
  H: number,
  threshold: number,
): Promise<TagPrice | null> {
  const binary = new Uint8Array(W * H);
  for (let i = 0; i < grey.length; i++) binary[i] = grey[i]! < threshold ? 0 : 255;
  const rowBox = tallestGlyphRow(darkComponents(binary, W, H), W, H);
  if (!rowBox) return null;
  const pad = Math.round((rowBox.y1 - rowBox.y0) * 0.25);
  const x0 = Math.max(0, rowBox.x0 - pad);
  const y0 = Math.max(0, rowBox.y0 - pad);
  const x1 = Math.min(W, rowBox.x1 + pad);
  const y1 = Math.min(H, rowBox.y1 + pad);
  const { data, info } = await sharp(Buffer.from(binary), { raw: { width: W, height: H, channels: 1 } })
    .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
    .resize({ height: 64 })
    .extend({ top: 24, bottom: 24, left: 24, right: 24, background: '#ffffff' })
    // One channel: extending with a colour background makes sharp answer RGB.
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const line = pgm(data, info.width, info.height);
  const lines = await ocr.lines(line, PSM.SINGLE_LINE, '0123456789.,');
  const text = lines
    .map((l) => l.text)
    .join('')
    .replace(/\s+/g, '');
  const value = parsePriceToken(text);
  return value == null ? null : { value, text, confidence: Math.min(...lines.map((l) => l.confidence), 100) };
}
