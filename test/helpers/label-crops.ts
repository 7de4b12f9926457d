import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { findLabelBoxes } from '../../src/modules/recognition/engines/local/label-finder.js';
import type { Box } from '../../src/modules/recognition/engines/local/ocr-pool.js';
import { decodePhoto, greenChannel } from '../../src/modules/recognition/engines/local/photo.js';

const dir = resolve(import.meta.dirname, '../fixtures/synthetic-shelves');

export type LabelCrop = { box: Box; region: Buffer; width: number; height: number };

/** The grey crops of a committed synthetic photo's labels, cut as the label reader cuts them (green channel, found boxes). */
export async function labelCrops(name: string): Promise<LabelCrop[]> {
  const photo = await decodePhoto(readFileSync(`${dir}/${name}.jpg`));
  const grey = greenChannel(photo);
  return (await findLabelBoxes(photo)).map((box) => {
    const left = Math.floor(box.x0);
    const top = Math.floor(box.y0);
    const width = Math.ceil(box.x1) - left;
    const height = Math.ceil(box.y1) - top;
    const region = Buffer.alloc(width * height);
    for (let y = 0; y < height; y++)
      grey.data.copy(region, y * width, (top + y) * grey.width + left, (top + y) * grey.width + left + width);
    return { box, region, width, height };
  });
}
