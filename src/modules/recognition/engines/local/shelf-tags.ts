import type { Box, OcrPool } from './ocr-pool.js';
import { findLabelBoxes } from './label-finder.js';
import { decodePhoto } from './photo.js';
import { readTagPrice } from './tag-price.js';

export type ShelfTag = { box: Box; price: number | null };

/**
 * Every price tag of a shelf photo with the price printed on it, found and read by the recognizer
 * alone (no labelled boxes): what "end to end" means for the real photos in the evaluation.
 */
export async function readShelfTags(ocr: OcrPool, image: Buffer): Promise<ShelfTag[]> {
  const boxes = await findLabelBoxes(await decodePhoto(image));
  const tags: ShelfTag[] = [];
  for (const box of boxes) tags.push({ box, price: (await readTagPrice(ocr, image, box))?.value ?? null });
  return tags;
}
