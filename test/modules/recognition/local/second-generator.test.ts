import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RecognitionEngines } from '../../../../src/modules/recognition/engines/index.js';
import type { CatalogueEntry, RecognizedProduct, Recognizer } from '../../../../src/modules/recognition/recognizer.js';
import { scoreShelf, type ShelfTruth } from '../../../../scripts/eval/score.js';
import { shelfInput } from '../../../helpers/shelf-photos.js';

// Photos from the second shelf generator (scripts/synth/second-generator), written apart from the
// first: its own label designs, price formats, barcodes down to a pixel a module, perspective, glare,
// 1280 to 2400 px. A fixed sample, so the figure moves only when recognition does. On 2026-11-26 its
// photos were looked at to find what recognition lacked (dark labels, catalogues in several
// currencies; on 2026-11-26, third session, nothing: a new tuning seed was drawn), so this sample is
// a regression floor, not an unseen check: the unseen figure comes from a fresh seed
// (docs/decisions.md). The floor is issue 35's target, 0.95: today 91 of the 92 products (0.989; 89 or 90 before D391);
// 0.935 when the text detector dropped every line photographed a few degrees off level (D353),
// 0.391 at 7286124 and 0.793 at 65131c2, all of which this test fails. Lowering it needs a reason
// in the commit.
// A process of its own (npm test: own process), started first by its time: the suite's heaviest CPU,
// twelve photos on two threads; sharing a process, it ran after the files before it and drew out
// the end of the run (82 s of wall in a group of 115 s, started at 124 s).
const RECALL_FLOOR = 0.95;
// Precision today: 0.989 (one product named that is not there); same rule.
const PRECISION_FLOOR = 0.95;
// Shelf (top, eye-level, middle, bottom) and section (left, center, right) both right, of the
// products found: 0.879 today; 0.512 when a pack's window or print read as a label made shelf rows
// of its own (docs/decisions.md, D348), which this test fails.
const POSITION_FLOOR = 0.75;
const dir = resolve(import.meta.dirname, '../../../fixtures/second-generator-shelves');
const catalogue = JSON.parse(readFileSync(`${dir}/catalogue.json`, 'utf8')) as CatalogueEntry[];
const truths = readdirSync(dir)
  .filter((f) => f.endsWith('.json') && f !== 'catalogue.json')
  .sort()
  .map((f) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')) as ShelfTruth);

describe('local recognizer on shelves from a generator it was never tuned on', () => {
  const engines = new RecognitionEngines();
  // Each photo read once, for the figures of both tests.
  const scores: { image: string; score: ReturnType<typeof scoreShelf>; products: RecognizedProduct[] }[] = [];
  before(async () => {
    const recognizer: Recognizer = await engines.create('local');
    for (const t of truths) {
      const products = await recognizer.recognize(await shelfInput(readFileSync(`${dir}/${t.image}`), catalogue));
      scores.push({ image: t.image, score: scoreShelf(products, t, catalogue), products });
    }
  });
  after(() => engines.close());
  const sum = (key: 'truth' | 'found' | 'falsePositives' | 'positionsRight') =>
    scores.reduce((n, s) => n + s.score[key], 0);

  it(`finds at least ${Math.round(RECALL_FLOOR * 100)} % of the products on the fixed sample, and names nothing that is not there`, () => {
    const perPhoto = scores.map(
      ({ image, score: s }) => `${image} ${s.found}/${s.truth}${s.falsePositives ? ` +${s.falsePositives} wrong` : ''}`,
    );
    const [truth, found, falsePositives] = [sum('truth'), sum('found'), sum('falsePositives')];
    const recall = found / truth;
    const precision = found / Math.max(1, found + falsePositives);
    assert.ok(recall >= RECALL_FLOOR, `recall ${found}/${truth} = ${recall.toFixed(3)}: ${perPhoto.join(', ')}`);
    assert.ok(precision >= PRECISION_FLOOR, `precision ${precision.toFixed(3)}: ${perPhoto.join(', ')}`);
  });

  it('gives a product seen priced on its label and unpriced on its packs once, priced', () => {
    const twice = scores.flatMap(({ image, products }) =>
      products
        .filter((p) => p.sku !== null && p.price === null)
        .filter((p) => products.some((q) => q.sku === p.sku && q.price !== null))
        .map((p) => `${image} ${p.sku}`),
    );
    assert.deepEqual(twice, []);
  });

  it('gives a product seen only unpriced (its print on several facings) once (D354)', () => {
    const twice = scores.flatMap(({ image, products }) =>
      products
        .filter((p) => p.sku !== null && p.price === null)
        .filter((p, i, all) => all.findIndex((q) => q.sku === p.sku) !== i)
        .map((p) => `${image} ${p.sku}`),
    );
    assert.deepEqual(twice, []);
  });

  it(`puts at least ${Math.round(POSITION_FLOOR * 100)} % of the products it finds on their shelf and in their section`, () => {
    const [found, placed] = [sum('found'), sum('positionsRight')];
    const perPhoto = scores.map(({ image, score: s }) => `${image} ${s.positionsRight}/${s.found}`);
    assert.ok(placed / found >= POSITION_FLOOR, `${placed}/${found} placed right: ${perPhoto.join(', ')}`);
  });
});
