import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import {
  countPacks,
  packMask,
  placeInRow,
  type RowPlace,
} from '../../../../src/modules/recognition/engines/local/facings.js';
import type { Box } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';
import { decodePhoto } from '../../../../src/modules/recognition/engines/local/photo.js';

// The second generator's committed sample (looked at: a regression floor, docs/decisions.md D349):
// packs that touch, white or pale packs, labels centred under their packs. Counted from the labels'
// boxes in the ground truth, so that only the counting is tested.
const dir = resolve(import.meta.dirname, '../../../fixtures/second-generator-shelves');
type Truth = { image: string; products: { sku: string; units: number; label: { bbox: number[] } }[] };

async function countedRight(name: string, from = dir): Promise<{ right: number; of: number; seen: string[] }> {
  const truth = JSON.parse(readFileSync(`${from}/${name}.json`, 'utf8')) as Truth;
  const photo = await decodePhoto(readFileSync(`${from}/${truth.image}`));
  const packs = await packMask(photo);
  const labels = truth.products.map((p) => {
    const [x0, y0, x1, y1] = p.label.bbox as [number, number, number, number];
    return { p, box: { x0, y0, x1, y1 } };
  });
  let right = 0;
  const seen: string[] = [];
  for (const { p, box } of labels) {
    const { units } = countPacks(
      packs,
      box,
      placeInRow(
        box,
        labels.map((l) => l.box),
        photo.width,
      ),
    );
    if (units === p.units) right++;
    seen.push(`${p.sku} ${units}/${p.units}`);
  }
  return { right, of: labels.length, seen };
}

describe('facings on shelves whose packs touch or stand centred over their label', () => {
  // Before D349 the colour runs alone counted 0 of shelf-07's 8 and 2 of shelf-04's 6 right.
  for (const [name, least] of [
    ['shelf-07', 5],
    ['shelf-04', 5],
  ] as const)
    it(`counts at least ${least} of ${name}'s products' facings right`, async () => {
      const { right, of, seen } = await countedRight(name);
      assert.ok(right >= least, `${right}/${of} right: ${seen.join(', ')}`);
    });
});

describe('facings under packs two to three label heights wide (the third generator, D400)', () => {
  // Seed 5's photos (a tuning seed): the pack's repeat was looked for up to two label heights only, so
  // a pack's own print was taken for its width. Before D400: shelf-02 4 of 12, shelf-08 5 of 12,
  // shelf-11 2 of 8.
  const tune = resolve(import.meta.dirname, '../../../fixtures/third-generator-tune');
  for (const [name, least] of [
    ['shelf-02', 9],
    ['shelf-08', 8],
    ['shelf-11', 5],
  ] as const)
    it(`counts at least ${least} of ${name}'s products' facings right`, async () => {
      const { right, of, seen } = await countedRight(name, tune);
      assert.ok(right >= least, `${right}/${of} right: ${seen.join(', ')}`);
    });
});

/** Facings counted on a crop of a tuning photo, over the label box and row given (photo pixels of the crop). */
async function countedOnCrop(name: string, label: Box, row: RowPlace): Promise<number> {
  const crop = resolve(import.meta.dirname, '../../../fixtures/tuning-crops', name);
  return countPacks(await packMask(await decodePhoto(readFileSync(crop))), label, row).units;
}

describe('facings on crops of tuning photos', () => {
  for (const [name, label, row, facings, why] of [
    [
      's2-9753-shelf-01-crackers.jpg',
      { x0: 208, y0: 212, x1: 576, y1: 332 },
      { rightLimit: 600, leftMiddle: 18, rightMiddle: 784, above: null },
      4,
      // Four white rice-cracker packs a few pixels apart, each with one green band and one red dot,
      // over the label the recognizer found (its top 6 px below the truth's). The band's column
      // profile repeats at the packs' width only weakly beside the falling slope of its shortest
      // lags: before D357 no width was tried and it counted 1.
      'white packs with a thin band of print (9753 shelf-01)',
    ],
    [
      's2-9753-shelf-11-top.jpg',
      { x0: 124, y0: 180, x1: 353, y1: 317 },
      { rightLimit: 491, leftMiddle: 0, rightMiddle: 601.5, above: null },
      5,
      // Five purple bottles in front of a dark pegboard, labelled under their middle. Every window of
      // the dotted wall is like the last one: before D359 the count walked on through the wall either
      // side and gave 12.
      'bottles in front of a dotted pegboard wall (9753 shelf-11)',
    ],
    [
      's2-9753-shelf-09-tuna.jpg',
      { x0: 86, y0: 173, x1: 394, y1: 274 },
      { rightLimit: 440, leftMiddle: 0, rightMiddle: 628.5, above: null },
      6,
      // Six blue-and-white cans, shorter than their label is tall, in front of a pale pegboard. A band
      // of fixed height over the label looked at the wall above the cans for two thirds of it, and
      // at the cans' white middles: before D361 it counted 1.
      'short cans under a tall wall (9753 shelf-09)',
    ],
    [
      's2-2468-shelf-03-top.jpg',
      { x0: 859, y0: 301, x1: 1116, y1: 395 },
      { rightLimit: 1448, leftMiddle: 27.5, rightMiddle: 1448, above: null },
      10,
      // Ten packs a few pixels apart, their label centred under them: before D360 the colour runs
      // were looked for from the label's left edge only and counted the seven right of it.
      'packs standing either side of their label (2468 shelf-03)',
    ],
  ] as const)
    it(`counts ${facings}: ${why}`, async () => {
      assert.equal(await countedOnCrop(name, label, row), facings);
    });
});
