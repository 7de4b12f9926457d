import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initORM } from '../../../src/db/orm.js';
import { ALERT_TITLE_MAX } from '../../../src/modules/alerts/alert.entity.js';
import { boundProduct, PRODUCT_LIMITS } from '../../../src/modules/recognition/product-bounds.js';
import { product } from '../../helpers/scripted-recognizer.js';

describe('boundProduct (any engine, before the products insert)', () => {
  it('leaves a product within its columns unchanged', () => {
    const p = product({
      brand: 'Fizz',
      sku: 'COLA-330',
      upc: '5449000000996',
      price: 1.29,
      discountedPrice: 0.99,
      currency: 'EUR',
      units: 4,
      sizeValue: 330,
      sizeUnit: 'ml',
    });
    assert.deepEqual(boundProduct(p), p);
  });

  it('keeps a box on the photo: cut at its edges, dropped when empty, off it or not a number', () => {
    const box = (b: { x: number; y: number; width: number; height: number } | null) =>
      boundProduct(product({ box: b })).box;
    assert.deepEqual(box({ x: 0.25, y: 0.5, width: 0.25, height: 0.125 }), {
      x: 0.25,
      y: 0.5,
      width: 0.25,
      height: 0.125,
    });
    assert.deepEqual(box({ x: -0.1, y: 0.8, width: 0.3, height: 0.5 }), { x: 0, y: 0.8, width: 0.2, height: 0.2 });
    assert.equal(box({ x: 1.2, y: 0.1, width: 0.2, height: 0.2 }), null);
    assert.equal(box({ x: 0.1, y: 0.1, width: 0, height: 0.2 }), null);
    assert.equal(box({ x: Number.NaN, y: 0.1, width: 0.2, height: 0.2 }), null);
    assert.equal(box(null), null);
  });

  it('cuts text, drops identifiers, currencies and prices that cannot fit, clamps counts and scores', () => {
    const p = boundProduct(
      product({
        brand: 'é'.repeat(300),
        subcategory: 'x'.repeat(255),
        sku: 'S'.repeat(256),
        upc: '9'.repeat(255),
        currency: 'gbp',
        price: 10_000_000_000,
        discountedPrice: -1,
        units: Number.NaN,
        confidenceScore: Number.NaN,
        sizeValue: -5,
      }),
    );
    assert.equal(p.brand, `${'é'.repeat(254)}…`);
    assert.equal(p.subcategory, 'x'.repeat(255), 'exactly at the maximum is kept whole');
    assert.equal(p.sku, null);
    assert.equal(p.upc, '9'.repeat(255));
    assert.equal(p.currency, 'GBP');
    assert.equal(p.price, null);
    assert.equal(p.discountedPrice, null);
    assert.equal(p.units, 1);
    assert.equal(p.confidenceScore, 0);
    assert.equal(p.sizeValue, null);
    assert.equal(boundProduct(product({ units: 1e15 })).units, PRODUCT_LIMITS.maxUnits);
    assert.equal(boundProduct(product({ units: Number.POSITIVE_INFINITY })).units, PRODUCT_LIMITS.maxUnits);
    assert.equal(boundProduct(product({ units: 0.2 })).units, 1);
  });

  it('makes text storable (NUL left out, a lone surrogate as U+FFFD) and drops an identifier holding either', () => {
    const p = boundProduct(
      product({ brand: 'A\u0000B', description: 'd\ud83d', sizeUnit: 'm\u0000l', upc: '123\u0000', sku: 'S\udc00' }),
    );
    assert.equal(p.brand, 'AB');
    assert.equal(p.description, 'd\ufffd');
    assert.equal(p.sizeUnit, 'ml');
    assert.equal(p.upc, null);
    assert.equal(p.sku, null);
  });

  it("the limits are the columns' own (read from the entity metadata), so a column change cannot leave them behind", async () => {
    const orm = await initORM(process.env.DATABASE_URL!);
    try {
      const column = (entity: string, prop: string) =>
        (orm.getMetadata().find(entity)!.properties as Record<string, { columnTypes: string[] }>)[
          prop
        ]!.columnTypes[0]!.toLowerCase();
      for (const prop of ['brand', 'sku', 'upc', 'category', 'subcategory', 'sizeUnit'])
        assert.equal(column('Product', prop), `varchar(${PRODUCT_LIMITS.text})`, prop);
      assert.equal(column('Product', 'currency'), 'varchar(3)');
      for (const prop of ['price', 'discountedPrice']) {
        const [, precision, scale] = /^numeric\((\d+),(\d+)\)$/.exec(column('Product', prop))!;
        assert.equal(
          PRODUCT_LIMITS.maxPrice,
          Number(`${'9'.repeat(Number(precision) - Number(scale))}.${'9'.repeat(Number(scale))}`),
          prop,
        );
      }
      assert.equal(column('Alert', 'title'), `varchar(${ALERT_TITLE_MAX})`);
    } finally {
      await orm.close();
    }
  });
});
