import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { findLabelBoxes } from '../../src/modules/recognition/engines/local/label-finder.js';
import { cutLabel } from '../../src/modules/recognition/engines/local/label-reader.js';
import type { Box } from '../../src/modules/recognition/engines/local/ocr-pool.js';
import { decodePhoto, greenChannel } from '../../src/modules/recognition/engines/local/photo.js';

const dir = resolve(import.meta.dirname, '../fixtures/synthetic-shelves');

export type LabelCrop = { box: Box; region: Buffer; width: number; height: number };

/** The grey crops of a committed synthetic photo's labels, cut by the label reader's own cutLabel (green channel, found boxes). */
export async function labelCrops(name: string): Promise<LabelCrop[]> {
  const photo = await decodePhoto(readFileSync(`${dir}/${name}.jpg`));
  const grey = greenChannel(photo);
  return (await findLabelBoxes(photo)).map((box) => {
    const { region, width, height } = cutLabel(grey, box);
    return { box, region, width, height };
  });
}
