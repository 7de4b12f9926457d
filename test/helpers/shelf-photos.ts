import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { RecognizeInput } from '../../src/modules/recognition/recognizer.js';

/** What the worker hands a recognizer for one photo: its bytes, its size, the organisation's catalogue. */
export async function shelfInput(image: Buffer, catalogue: RecognizeInput['catalogue']): Promise<RecognizeInput> {
  const meta = await sharp(image).metadata();
  return { image, width: meta.width!, height: meta.height!, contentType: 'image/jpeg', catalogue, runIndex: 0 };
}

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
      .map((f) => shelfInput(readFileSync(join(dir, f)), catalogue)),
  );
}
