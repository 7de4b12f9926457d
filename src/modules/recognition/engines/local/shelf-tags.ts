import type { Box } from './ocr-types.js';
import { findLabelBoxes } from './label-finder.js';
import type { PaddleOcr } from './paddle/paddle-ocr.js';
import { readTagPricesPaddle } from './paddle/paddle-tag-prices.js';
import { decodePhoto } from './photo.js';

export type ShelfTag = { box: Box; price: number };

/**
 * Every price tag of a shelf photo with the price printed on it, found and read by the recognizer
 * alone (no labelled boxes): what "end to end" means for the real photos in the evaluation.
 *
 * Price lines found by the text detector over the whole photo at 1280 px, the tallest on each tag,
 * and the paper finder's tags that no such line stands on read one by one, closer. On the tune half
 * of the real photos (scripts/eval/real-split.json) this read 74 of 75 tags, as did 1600 px with the
 * paper boxes and 1920 px alone; 1280 is the cheapest of the three.
 * The paper finder's tags are read at 384 px rather than readTagPriceInBox's 480: the same 74 on the
 * tune half, their detection a third cheaper (D263).
 */
export async function readShelfTags(text: PaddleOcr, image: Buffer): Promise<ShelfTag[]> {
  const photo = await decodePhoto(image);
  const prices = await readTagPricesPaddle(
    text,
    { data: photo.rgb, width: photo.width, height: photo.height, channels: 3 },
    { maxSide: 1280, tagBoxes: await findLabelBoxes(photo), cropSide: 384 },
  );
  return prices.map((p) => ({ box: p.box, price: p.value }));
}
