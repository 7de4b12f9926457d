import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { checkDigit, isValidGtin } from '../../scripts/synth/third-generator/barcode.js';
import { generate, shelfPosition, shelfSection } from '../../scripts/synth/third-generator/generator.js';

const RANK: Readonly<Record<string, number>> = { top: 0, 'eye-level': 1, middle: 2, bottom: 3 };

describe('third generator (synthetic shelf photos for checking only)', () => {
  const a = mkdtempSync(join(tmpdir(), 'third-gen-a-'));
  const b = mkdtempSync(join(tmpdir(), 'third-gen-b-'));
  after(() => {
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  });
  const options = { count: 1, seed: 7, minWidth: 1280, maxWidth: 1280 };
  const run = Promise.all([generate({ out: a, ...options }), generate({ out: b, ...options })]);
  // Each test awaits `run`; this only keeps an early failure from counting as unhandled first.
  run.catch(() => undefined);

  it('computes GS1 check digits', () => {
    assert.equal(checkDigit('400638133393'), 1);
    assert.ok(isValidGtin('4006381333931'));
    assert.ok(isValidGtin('036000291452'));
    assert.ok(!isValidGtin('4006381333932'));
  });

  it('maps rows and centres to shelf positions and sections by the rules', () => {
    assert.equal(shelfPosition(0, 1), 'eye-level');
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((r) => shelfPosition(r, 5)),
      ['top', 'eye-level', 'middle', 'middle', 'bottom'],
    );
    assert.deepEqual(
      [0, 1].map((r) => shelfPosition(r, 2)),
      ['top', 'bottom'],
    );
    assert.deepEqual(
      [100, 500, 900].map((x) => shelfSection(x, 1200)),
      ['left', 'center', 'right'],
    );
  });

  it('writes the same bytes for the same seed', async () => {
    await run;
    const files = readdirSync(a).sort();
    assert.deepEqual(files, ['catalogue.json', 'shelf-01.jpg', 'shelf-01.json']);
    assert.deepEqual(readdirSync(b).sort(), files);
    for (const f of files) assert.ok(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), `${f} differs`);
  });

  it('writes a catalogue and a photo whose JSON keeps the rules', async () => {
    await run;
    const catalogue = JSON.parse(readFileSync(join(a, 'catalogue.json'), 'utf8')) as {
      upc: string;
      sku: string;
      currency: string;
    }[];
    assert.ok(catalogue.length >= 60 && catalogue.length <= 120, `catalogue of ${catalogue.length}`);
    for (const e of catalogue) assert.ok(isValidGtin(e.upc), `bad check digit: ${e.upc}`);
    assert.equal(new Set(catalogue.map((e) => e.upc)).size, catalogue.length);
    const bySku = new Map(catalogue.map((e) => [e.sku, e]));

    const truth = JSON.parse(readFileSync(join(a, 'shelf-01.json'), 'utf8')) as {
      image: string;
      width: number;
      height: number;
      generator: string;
      seed: number;
      products: {
        sku: string;
        upc: string;
        currency: string;
        price: number;
        discountedPrice: number | null;
        onSale: boolean;
        units: number;
        shelfPosition: string;
        shelfSection: string;
        bbox: number[];
        label: { bbox: number[]; text: string; occluded: boolean };
      }[];
    };
    assert.equal(truth.image, 'shelf-01.jpg');
    assert.equal(truth.generator, 'third-generator');
    assert.equal(truth.seed, 7);
    assert.equal(truth.width, 1280);
    const meta = await sharp(readFileSync(join(a, 'shelf-01.jpg'))).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.deepEqual([meta.width, meta.height], [truth.width, truth.height]);
    assert.ok(truth.products.length >= 3);
    const { width: W, height: H } = truth;
    const inside = (box: number[]) =>
      box.length === 4 &&
      box[0] >= 0 &&
      box[1] >= 0 &&
      box[2] <= W &&
      box[3] <= H &&
      box[0] < box[2] &&
      box[1] < box[3];
    assert.equal(new Set(truth.products.map((p) => p.currency)).size, 1);
    for (const p of truth.products) {
      assert.ok(isValidGtin(p.upc), `bad check digit: ${p.upc}`);
      assert.equal(bySku.get(p.sku)?.upc, p.upc);
      assert.equal(bySku.get(p.sku)?.currency, p.currency);
      assert.ok(inside(p.bbox), `product box ${p.bbox} outside ${W}x${H}`);
      assert.ok(inside(p.label.bbox), `label box ${p.label.bbox} outside ${W}x${H}`);
      assert.ok(p.units >= 1 && p.units <= 5);
      assert.equal(p.onSale, p.discountedPrice !== null);
      if (p.discountedPrice !== null) assert.ok(p.discountedPrice < p.price);
      assert.ok(p.label.text.length > 0);
      const centre = (Math.min(p.bbox[0], p.label.bbox[0]) + Math.max(p.bbox[2], p.label.bbox[2])) / 2;
      assert.equal(p.shelfSection, shelfSection(centre, W));
      assert.ok(p.shelfPosition in RANK);
    }
    // Shelf positions follow the labels' rows from the top: a higher rank never sits above a lower one.
    const cy = (box: number[]) => (box[1] + box[3]) / 2;
    for (const p of truth.products) {
      for (const q of truth.products) {
        if (RANK[p.shelfPosition] < RANK[q.shelfPosition]) assert.ok(cy(p.label.bbox) < cy(q.label.bbox));
      }
    }
    const positions = new Set(truth.products.map((p) => p.shelfPosition));
    assert.ok(positions.has('top') && positions.has('bottom'), 'two to five rows: a top and a bottom row');
  });
});
