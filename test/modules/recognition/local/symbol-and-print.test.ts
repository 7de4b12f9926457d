import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RecognitionEngines } from '../../../../src/modules/recognition/engines/index.js';
import type { CatalogueEntry, Recognizer } from '../../../../src/modules/recognition/recognizer.js';
import { shelfInput } from '../../../helpers/shelf-photos.js';

// The lower right of a photo of the second generator's tuning seed 4711 (shelf-01, x 1000-2400,
// y 1000-1800: `npm run synth:second -- --out DIR --count 24 --seed 4711 --max-width 2400 --max-kb
// 580`), cut out so the test reads one photo's worth of it. Two labels stand there: a yellow
// MULTIBUY label (Verdant Sweetcorn 326g, 3 for 2,00 €, 0,99 € each) and, right of it, a white one
// (Wrenfield Pesto Genovese 190g). The text detector finds the two as one crop, whose print names
// the sweetcorn outright, while the symbol nearest it is the pesto's.
const dir = resolve(import.meta.dirname, '../../../fixtures/tuning-crops');
const catalogue = JSON.parse(readFileSync(`${dir}/s2-4711-catalogue.json`, 'utf8')) as CatalogueEntry[];

describe('a label whose print names one product while the symbol nearest it decodes as another (D291)', () => {
  const engines = new RecognitionEngines();
  let recognizer: Recognizer;
  before(async () => {
    recognizer = await engines.create('local');
  });
  after(() => engines.close());

  it('gives both products: the symbol names one, the print the other', async () => {
    const products = await recognizer.recognize(
      await shelfInput(readFileSync(`${dir}/s2-4711-shelf-01-right.jpg`), catalogue),
    );
    const skus = new Set(products.map((p) => p.sku));
    assert.ok(skus.has('S2-EUR-SAU-026'), `the pesto (by its symbol): ${[...skus].join(', ')}`);
    assert.ok(skus.has('S2-EUR-CAN-028'), `the sweetcorn (by its print): ${[...skus].join(', ')}`);
  });
});
