import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RecognitionEngines } from '../../../../src/modules/recognition/engines/index.js';
import { colouredPaperBoxes } from '../../../../src/modules/recognition/engines/local/coloured-paper.js';
import { decodePhoto } from '../../../../src/modules/recognition/engines/local/photo.js';
import type { CatalogueEntry, Recognizer } from '../../../../src/modules/recognition/recognizer.js';
import { shelfInput } from '../../../helpers/shelf-photos.js';

// A piece of a photo of the second generator's tuning seed 2468 (shelf-08, x 100-800, y 1040-1440:
// `npm run synth:second -- --out DIR --count 24 --seed 2468 --max-width 2400 --max-kb 580`). In the
// middle, a red promotion label: "MIX & MATCH" in red on a white strip over "Hollybrook Salted
// Peanuts 200g 3 for £3.50 £1.65 each" in white on red, its symbol on a white patch; a white label on
// each side, packs above. The usual readings name nothing on the red label (D325): it is found only
// by the second reading of its red paper alone, on a sheet of its own (D340).
const dir = resolve(import.meta.dirname, '../../../fixtures/tuning-crops');
const catalogue = JSON.parse(readFileSync(`${dir}/s2-2468-catalogue.json`, 'utf8')) as CatalogueEntry[];
const image = readFileSync(`${dir}/s2-2468-shelf-08-promo.jpg`);

describe('a red promotion label, its red paper read a second time on a sheet of its own (D340)', () => {
  const engines = new RecognitionEngines();
  let recognizer: Recognizer;
  before(async () => {
    recognizer = await engines.create('local');
  });
  after(() => engines.close());

  it('is found and priced, and its neighbours as before', async () => {
    const products = await recognizer.recognize(await shelfInput(image, catalogue));
    const peanuts = products.find((p) => p.sku === 'S2-GBP-SNK-020');
    assert.ok(peanuts, `the red label's peanuts: ${products.map((p) => `${p.sku} ${p.price}`).join(', ')}`);
    assert.equal(peanuts.price, 1.65);
    assert.ok(
      products.some((p) => p.sku === 'S2-GBP-BRK-015'),
      'the bran flakes beside it',
    );
    // Nothing named that is not on the shelf.
    const onShelf = new Set(['S2-GBP-SNK-020', 'S2-GBP-BRK-015', 'S2-GBP-SAU-008']);
    for (const p of products) if (p.sku) assert.ok(onShelf.has(p.sku), `${p.sku} is not on this shelf`);
  });

  it("finds the label's red paper and no pack's colour as coloured paper", async () => {
    const boxes = await colouredPaperBoxes(await decodePhoto(image));
    assert.equal(boxes.length, 1, JSON.stringify(boxes));
    const [box] = boxes;
    // The red part of the label (x 145-480, y 220-318), not the red ring on the pack above it.
    assert.ok(box!.x0 >= 135 && box!.x0 <= 155 && box!.x1 >= 470 && box!.x1 <= 490, JSON.stringify(box));
    assert.ok(box!.y0 >= 210 && box!.y0 <= 230 && box!.y1 >= 305 && box!.y1 <= 325, JSON.stringify(box));
  });
});
