import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Box } from '../../src/modules/recognition/engines/local/ocr-types.js';

/** One priced tag of the real shelf photos: its photo, its labelled box in original pixels, its price. */
export type RealTag = { image: string; box: Box; price: number };

/** The 144 priced tags of `real-shelf-price-tags/price_boxes_gt.csv` (source_image,x1,y1,x2,y2,gt_price,...). */
export function readRealTags(tagsDir: string): RealTag[] {
  return readFileSync(join(tagsDir, 'price_boxes_gt.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((row) => row.split(','))
    .map(([image, x1, y1, x2, y2, price]) => ({
      image: image!,
      box: { x0: +x1!, y0: +y1!, x1: +x2!, y1: +y2! },
      price: Number(price),
    }));
}

/** The written split of the 20 real photos (real-split.json): choices are made on `tune` only. */
export function readRealSplit(): { tune: string[]; heldOut: string[] } {
  return JSON.parse(readFileSync(join(import.meta.dirname, 'real-split.json'), 'utf8')) as {
    tune: string[];
    heldOut: string[];
  };
}
