import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before } from 'node:test';
import sharp from 'sharp';
import { procStat } from '../../src/lib/proc-stat.js';
import { RecognitionPool } from '../../src/modules/recognition/engines/local/recognition-pool.js';

/** The first generator's shelf photos (test/fixtures/synthetic-shelves). */
export const syntheticShelves = resolve(import.meta.dirname, '../fixtures/synthetic-shelves');

/**
 * Shelf photos of the first generator at twice their size (3200×2400), as phones take them: a
 * photo's pixel work grows fourfold, its OCR (labels are read at a fixed height) hardly, so pixel work
 * done on the main thread would show. By name (`shelf-01`).
 */
async function phoneSizedShelves(names: string[]): Promise<Map<string, Buffer>> {
  const large = new Map<string, Buffer>();
  for (const name of names)
    large.set(
      name,
      await sharp(readFileSync(`${syntheticShelves}/${name}.jpg`))
        .resize(3200, 2400)
        .jpeg({ quality: 90 })
        .toBuffer(),
    );
  return large;
}

/** CPU milliseconds the process's main thread (its tid is the pid) has used, from /proc. */
export function mainThreadCpuMs(): number {
  return procStat(`self/task/${process.pid}`)!.cpuMs;
}

/**
 * A recognition pool of `threads` threads and the photos `names` made phone-sized, for the suite it is
 * called in: made before its tests, the pool closed after them.
 */
export function poolOfPhoneSizedShelves(threads: number, names: string[]) {
  const held: { pool?: RecognitionPool; photos?: Map<string, Buffer> } = {};
  before(async () => {
    held.pool = new RecognitionPool(threads);
    held.photos = await phoneSizedShelves(names);
  });
  after(() => held.pool?.close());
  return {
    pool: () => held.pool!,
    photo: (name: string) => held.photos!.get(name)!,
  };
}
