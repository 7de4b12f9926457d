import type { Box, OcrPool } from './ocr-pool.js';
import { findLabelBoxes } from './label-finder.js';
import type { PaddleOcr } from './paddle/paddle-ocr.js';
import { readTagPricesPaddle } from './paddle/paddle-tag-prices.js';
import { decodePhoto } from './photo.js';
import { readTagPrice } from './tag-price.js';

export type ShelfTag = { box: Box; price: number | null };

/**
 * Every price tag of a shelf photo with the price printed on it, found and read by the recognizer
 * alone (no labelled boxes): what "end to end" means for the real photos in the evaluation.
 *
 * With the text detector: price lines found over the whole photo at 1280 px, the tallest on each
 * tag, and the paper finder's tags that no such line stands on read one by one, closer. On the tune
 * half of the real photos (scripts/eval/real-split.json) this read 74 of 75 tags, as did 1600 px
 * with the paper boxes and 1920 px alone; 1280 is the cheapest of the three. Without it: the paper
 * finder's boxes, each read by tesseract (tag-price.ts).
 */
export async function readShelfTags(ocr: OcrPool, image: Buffer, text?: PaddleOcr): Promise<ShelfTag[]> {
  const photo = await decodePhoto(image);
  const boxes = await findLabelBoxes(photo);
  if (text) {
    const prices = await readTagPricesPaddle(
      text,
      { data: photo.rgb, width: photo.width, height: photo.height, channels: 3 },
      { maxSide: 1280, tagBoxes: boxes },
    );
    return prices.map((p) => ({ box: p.box, price: p.value }));
  }
  const tags: ShelfTag[] = [];
  for (const box of boxes) tags.push({ box, price: (await readTagPrice(ocr, image, box))?.value ?? null });
  return tags;
}
