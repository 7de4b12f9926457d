import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pricedByUnnamedLabels } from '../../../../src/modules/recognition/engines/local/local-recognizer.js';
import type { CatalogueEntry, RecognizedProduct } from '../../../../src/modules/recognition/recognizer.js';
import { catalogueEntry } from '../../../helpers/catalogue-entries.js';

const catalogue = new Map<string, CatalogueEntry>(
  [
    catalogueEntry('conditioner', 'Ember Home', 'Fabric Conditioner 1L', 7.49, 'EUR'),
    catalogueEntry('liquid', 'Everyday Basics', 'Colour Care Liquid 1.5L', 4.99, 'EUR'),
    catalogueEntry('capsules', 'Velholm', 'Laundry Capsules 38 Pack', 4.99, 'EUR'),
    { ...catalogueEntry('lotion', 'Corstead Labs', 'Cocoa Butter Lotion 13.5 fl oz', 3.29, 'USD'), sizeValue: 13.5 },
  ].map((e) => [e.sku, e]),
);

/** A product as the recognizer gives it, at `x`, `y` (fractions of the photo), 0.1 wide and tall. */
function product(sku: string | null, price: number | null, x: number, y: number): RecognizedProduct {
  return {
    brand: null,
    description: null,
    units: 1,
    upc: null,
    sku,
    category: null,
    subcategory: null,
    price,
    discountedPrice: null,
    currency: null,
    onSale: false,
    confidenceScore: 0.5,
    shelfPosition: null,
    shelfSection: null,
    fixtureType: null,
    sizeValue: null,
    sizeUnit: null,
    box: { x, y, width: 0.1, height: 0.1 },
  };
}

describe('a named unpriced product and the unnamed label under it (D382)', () => {
  it("gives the product the label's price when it is exactly the product's expected price", () => {
    const named = product('conditioner', null, 0.5, 0.3);
    const out = pricedByUnnamedLabels([named, product(null, 7.49, 0.52, 0.45)], catalogue);
    assert.deepEqual(
      out.map((p) => [p.sku, p.price]),
      [['conditioner', 7.49]],
    );
    // Its point lost ("7⁴⁹" read 749) counts too; the price is put right later (priceForEntry).
    assert.deepEqual(
      pricedByUnnamedLabels([product('conditioner', null, 0.5, 0.3), product(null, 749, 0.52, 0.45)], catalogue).map(
        (p) => [p.sku, p.price],
      ),
      [['conditioner', 749]],
    );
  });

  it('leaves both where the price is not the expected one, the label is above or far off, or two products fit', () => {
    for (const [label, note] of [
      [product(null, 7.29, 0.52, 0.45), 'another price'],
      [product(null, 7.49, 0.52, 0.1), 'above the product'],
      [product(null, 7.49, 0.9, 0.45), 'three facings off'],
    ] as const) {
      const out = pricedByUnnamedLabels([product('conditioner', null, 0.5, 0.3), label], catalogue);
      assert.deepEqual(
        out.map((p) => [p.sku, p.price]),
        [
          ['conditioner', null],
          [null, label.price],
        ],
        note,
      );
    }
    // Two unpriced products the price fits: which one it is the label does not say.
    const out = pricedByUnnamedLabels(
      [product('liquid', null, 0.5, 0.3), product('capsules', null, 0.55, 0.3), product(null, 4.99, 0.53, 0.45)],
      catalogue,
    );
    assert.deepEqual(
      out.map((p) => p.price),
      [null, null, 4.99],
    );
  });

  it('counts one product seen twice unpriced once, and a price that is its size as none (D389)', () => {
    // Seed 5's shelf-08: "Cocoa Butter Lotion" read on its pack and on its label's name, neither
    // priced, over a label reading $3.29 and no name. Two sightings of one product are one fit.
    const twice = pricedByUnnamedLabels(
      [product('lotion', null, 0.27, 0.12), product('lotion', null, 0.27, 0.35), product(null, 3.29, 0.28, 0.46)],
      catalogue,
    );
    assert.deepEqual(
      twice.map((p) => [p.sku, p.price]),
      [
        ['lotion', 3.29],
        ['lotion', null],
      ],
    );
    // Its size read as its price ("13.5 fl oz" as 13.5, reported as unknown: priceForEntry) is no price.
    const sized = pricedByUnnamedLabels(
      [product('lotion', 13.5, 0.27, 0.35), product(null, 3.29, 0.28, 0.46)],
      catalogue,
    );
    assert.deepEqual(
      sized.map((p) => [p.sku, p.price]),
      [['lotion', 3.29]],
    );
  });
});
