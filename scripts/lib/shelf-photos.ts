import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { RecognizeInput } from '../../src/modules/recognition/recognizer.js';

/**
 * A directory of shelf photos as `npm run synth` writes it (JPEGs and their `catalogue.json`), ready
 * to hand to a recognizer: what the recognition benchmarks read.
 */
export async function loadShelfPhotos(dir: string): Promise<RecognizeInput[]> {
  const catalogue = JSON.parse(readFileSync(join(dir, 'catalogue.json'), 'utf8')) as RecognizeInput['catalogue'];
  return Promise.all(
    readdirSync(dir)
      .filter((f) => f.endsWith('.jpg'))
      .sort()
      .map(async (f) => {
        const image = readFileSync(join(dir, f));
        const meta = await sharp(image).metadata();
        return { image, width: meta.width!, height: meta.height!, contentType: 'image/jpeg', catalogue, runIndex: 0 };
      }),
  );
}
