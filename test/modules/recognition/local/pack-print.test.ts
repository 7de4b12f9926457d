import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { RecognitionEngines } from '../../../../src/modules/recognition/engines/index.js';
import type { CatalogueEntry } from '../../../../src/modules/recognition/recognizer.js';
import { scoreShelf, type ShelfTruth } from '../../../../scripts/eval/score.js';
import { shelfInput } from '../../../helpers/shelf-photos.js';

// A wide shot from the third generator (npm run synth:third, seed 5, its shelf-08; a tuning seed, so
// this photo is a regression floor, not a check: D377). Its labels are found, but a label's name is a
// few pixels tall and reads as nothing; the packs over them print their brand and name large. Main
// before D377 named 2 of its 12 products (the two whose labels could be read); naming a label from
// its packs' print gave 6 (D378), and print showing the one catalogue entry's whole name without its
// brand ("BROWN SAUCE") naming that entry gives 9 (D379), with nothing named that is not there.
const dir = resolve(import.meta.dirname, '../../../fixtures/third-generator-tune');
const catalogue = JSON.parse(readFileSync(`${dir}/catalogue.json`, 'utf8')) as CatalogueEntry[];
const truth = JSON.parse(readFileSync(`${dir}/shelf-08.json`, 'utf8')) as ShelfTruth;

describe('local recognizer on a wide shot whose labels are too small to read', () => {
  const engines = new RecognitionEngines();
  after(() => engines.close());

  it("names products from their packs' print over the labels, and nothing that is not on the shelf", async () => {
    const recognizer = await engines.create('local');
    const products = await recognizer.recognize(await shelfInput(readFileSync(`${dir}/${truth.image}`), catalogue));
    const s = scoreShelf(products, truth, catalogue);
    const named = products.map((p) => p.sku ?? '-').join(' ');
    assert.ok(s.found >= 8, `${s.found} of ${s.truth} found: ${named}`);
    assert.equal(s.falsePositives, 0, named);
  });
});
