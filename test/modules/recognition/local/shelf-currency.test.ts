import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { LocalRecognizer } from '../../../../src/modules/recognition/engines/local/local-recognizer.js';
import { shelfInput } from '../../../helpers/shelf-photos.js';
import { catalogueEntry } from '../../../helpers/catalogue-entries.js';
import { OcrPool } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';

// A catalogue spanning countries, as the second generator's: the same products once per currency,
// the pound entries listed first (a label named in no currency takes the first of a tie).
const entry = catalogueEntry;
const catalogue = [
  entry('GBP-COLA', 'Sunvale', 'Cola 330ml', 0.99, 'GBP'),
  entry('GBP-TEA', 'Kestrel', 'Green Tea 40 bags', 1.89, 'GBP'),
  entry('GBP-HONEY', 'Moorland', 'Clear Honey 340g', 3.19, 'GBP'),
  entry('GBP-SHAMPOO', 'Copperleaf', 'Herbal Shampoo 400ml', 2.79, 'GBP'),
  entry('EUR-COLA', 'Sunvale', 'Cola 330ml', 1.29, 'EUR'),
  entry('EUR-TEA', 'Kestrel', 'Green Tea 40 bags', 2.49, 'EUR'),
  entry('EUR-HONEY', 'Moorland', 'Clear Honey 340g', 3.69, 'EUR'),
  entry('EUR-SHAMPOO', 'Northgate', 'Herbal Shampoo 400ml', 3.49, 'EUR'),
];

/** A row of white labels on a grey shelf, each a name line over a price line (none where ''). */
async function shelf(labels: [string, string][]): Promise<Buffer> {
  const paper = labels
    .map(([name, price], i) => {
      const x = 40 + i * 500;
      return `<rect x="${x}" y="300" width="460" height="140" fill="#ffffff"/>
      <text x="${x + 12}" y="340" font-family="DejaVu Sans" font-size="26" fill="#111">${name}</text>
      <text x="${x + 140}" y="420" font-family="DejaVu Sans" font-size="56" font-weight="bold" fill="#111">${price}</text>`;
    })
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${80 + labels.length * 500}" height="500"><rect width="100%" height="100%" fill="#8d8d8d"/>${paper}</svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

describe("a shelf's currency (one shelf, one currency)", () => {
  const pool = new OcrPool(1);
  after(() => pool.close());
  const read = async (image: Buffer) =>
    new LocalRecognizer({ ocr: pool }).recognize(await shelfInput(image, catalogue));

  it('is told by names and prices that fit one currency when no label shows a sign', async () => {
    // Prices read without their sign (yen read as bare numbers, a small `€` lost): the cola and tea
    // are the euro entries by their prices, so the honey label, whose price was not read, is too.
    const products = await read(
      await shelf([
        ['Sunvale Cola 330ml', '1.29'],
        ['Kestrel Green Tea 40 bags', '2.49'],
        ['Moorland Clear Honey 340g', ''],
      ]),
    );
    assert.deepEqual(products.map((p) => p.sku).sort(), ['EUR-COLA', 'EUR-HONEY', 'EUR-TEA']);
  });

  it("names a label whose sign was misread as another currency's in the shelf's", async () => {
    // `€3.49` read as `£3.49` (as on a second-generator tuning photo): in pounds the label named the
    // pound catalogue's other brand of the same shampoo.
    const products = await read(
      await shelf([
        ['Sunvale Cola 330ml', '€1.29'],
        ['Kestrel Green Tea 40 bags', '€2.49'],
        ['Northgate Herbal Shampoo 400ml', '£3.49'],
      ]),
    );
    assert.deepEqual(products.map((p) => [p.sku, p.price, p.currency]).sort(), [
      ['EUR-COLA', 1.29, 'EUR'],
      ['EUR-SHAMPOO', 3.49, 'EUR'],
      ['EUR-TEA', 2.49, 'EUR'],
    ]);
  });
});
