import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexCatalogue } from '../../../../src/modules/recognition/catalogue-matcher.js';
import {
  catalogueWords,
  facingRuns,
  inCatalogueSpelling,
} from '../../../../src/modules/recognition/engines/local/facing-reads.js';
import type { Box } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';
import { catalogueEntry } from '../../../helpers/catalogue-entries.js';

// The catalogue's words, from brand and name pairs.
const words = catalogueWords(
  indexCatalogue(
    [
      ['Little Acorn', 'Cocoa Powder 6 oz'],
      ['Meadow & Platt', 'Baking Powder 6 oz'],
      ['Willow & Vance', 'Strawberry Jam 12 oz'],
      ['Shopwise', 'Cloudy Lemonade 1.5L'],
      ['Corvale Farm', 'Sea Salt Chips'],
      ['Selton', 'Power Bank'],
    ].map(([brand, name], i) => catalogueEntry(`sku-${i}`, brand!, name!, null, 'USD')),
  ),
);

describe("print on a pack's facings read together (D394)", () => {
  it("puts print read a few pixels tall in the catalogue's spelling, and leaves what is not near one word", () => {
    // Seed 5's shelf-02 of the third generator: one of Cocoa Powder's four facings as the learned
    // recognizer read it.
    assert.equal(inCatalogueSpelling('Litte Acom Caesa Peeder', words), 'little acorn caesa powder');
    assert.equal(inCatalogueSpelling('W&Vance strbery Jan', words), 'vance strawberry jam');
    // Sizes and numbers as they were; a short word one letter from one catalogue word only is spelt.
    assert.equal(inCatalogueSpelling('12 oz Sal', words), '12 oz salt');
    assert.equal(inCatalogueSpelling('Chipa Sea', words), 'chips sea');
    // A word near no catalogue word, and one a letter from two ("powder" and "power"), are left as read.
    assert.equal(inCatalogueSpelling('zzzzz Powser', words), 'zzzzz powser');
  });

  const box = (x0: number, y0: number, wide = 60, tall = 40): Box => ({ x0, y0, x1: x0 + wide, y1: y0 + tall });
  const item = (name: string, b: Box, sku = 'a') => ({ name, b, sku });
  const runs = (items: ReturnType<typeof item>[]) =>
    facingRuns(
      items,
      (i) => i.b,
      (p, q) => p.sku === q.sku,
    ).map((run) => run.map((i) => i.name).sort());

  it('groups facings side by side on one row naming one entry, a missed facing between them or not', () => {
    assert.deepEqual(
      runs([
        item('first', box(100, 600)),
        item('second', box(180, 605, 64, 46)),
        // The facing after the next was not read: a gap of one pack.
        item('fourth', box(330, 602)),
      ]),
      [['first', 'fourth', 'second']],
    );
  });

  it('keeps apart facings on other rows, far along the row, of another size, or naming another entry', () => {
    assert.deepEqual(
      runs([
        item('pack', box(100, 600)),
        item('the shelf above', box(170, 400)),
        item('across the shelf', box(600, 600)),
        item('a box three times as tall', box(170, 560, 60, 120)),
        item('its neighbour, another product', box(170, 600), 'b'),
      ]),
      [],
    );
  });
});
