import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { productRows } from '../../../../src/modules/recognition/engines/local/shelf-rows.js';
import type { Box } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';
import type { RecognizedProduct } from '../../../../src/modules/recognition/recognizer.js';

/** A product read from a box 100 px wide and `tall` px tall whose middle is at `y`. */
function sighting(name: string, price: number | null, y: number, tall = 50) {
  const product = { description: name, price } as RecognizedProduct;
  const box: Box = { x0: 100, y0: y - tall / 2, x1: 200, y1: y + tall / 2 };
  return { product, box };
}

function rowsOf(sightings: ReturnType<typeof sighting>[]) {
  const boxes = new Map(sightings.map((s) => [s.product, s.box]));
  const rows = productRows(
    sightings.map((s) => s.product),
    (p) => boxes.get(p)!,
  );
  return Object.fromEntries(sightings.map((s) => [s.product.description, rows.get(s.product)]));
}

describe('shelf rows of a photo’s products (D390)', () => {
  it('puts a product named by its pack’s print on the shelf edge under it, not on a row of its own', () => {
    // Seed 5's shelf-03 of the third generator, as the pack-print pass reads it: three shelf edges of
    // priced labels, and packs' print named above the top and the second edge.
    const rows = rowsOf([
      sighting('shampoo print', null, 343, 40),
      sighting('top label', 2.29, 530, 65),
      sighting('toothpaste print', null, 900, 35),
      sighting('cream print', null, 1000, 60),
      sighting('eye-level label', 3.95, 1060, 65),
      sighting('shortbread print', null, 1430, 160),
      sighting('bottom label', 1.99, 1690, 65),
    ]);
    assert.deepEqual(rows, {
      'shampoo print': 'top',
      'top label': 'top',
      'toothpaste print': 'eye-level',
      'cream print': 'eye-level',
      'eye-level label': 'eye-level',
      'shortbread print': 'bottom',
      'bottom label': 'bottom',
    });
  });

  it('keeps an unpriced label on its own edge, and one below every edge on a row of its own', () => {
    const rows = rowsOf([
      sighting('priced', 1.5, 500),
      sighting('unpriced beside it', null, 510),
      sighting('priced below', 2.5, 1000),
      sighting('unpriced under all', null, 1500),
    ]);
    assert.deepEqual(rows, {
      priced: 'top',
      'unpriced beside it': 'top',
      'priced below': 'eye-level',
      'unpriced under all': 'bottom',
    });
  });

  it('makes rows of every box where no price was read', () => {
    const rows = rowsOf([sighting('a', null, 300), sighting('b', null, 800), sighting('c', null, 1300)]);
    assert.deepEqual(rows, { a: 'top', b: 'eye-level', c: 'bottom' });
  });
});
