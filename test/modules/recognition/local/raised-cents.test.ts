import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { PaddleOcr } from '../../../../src/modules/recognition/engines/local/paddle/paddle-ocr.js';
import { decodePhoto } from '../../../../src/modules/recognition/engines/local/photo.js';
import { readRaisedCents } from '../../../../src/modules/recognition/engines/local/raised-cents.js';

/**
 * A shelf edge with one label on it, `scale` times the size of seed 5's shelf-02 labels (70 × 38 px
 * in a 1440 px photo): a US label's name in small print and its price, `raised` with the cents half
 * as tall as the dollars and level with their tops, or on one baseline.
 */
async function label(scale: number, price: { dollars: string; cents: string; raised: boolean }) {
  const s = (v: number) => v * scale;
  const [x, y, w, h] = [s(40), s(20), s(70 + 15 * (price.dollars.length - 1)), s(38)];
  const name = `<text x="${x + s(4)}" y="${y + s(8)}" font-family="DejaVu Sans" font-size="${s(4)}" fill="#222">SHOPWISE RED KIDNEY</text>`;
  const shown = price.raised
    ? `<text x="${x + s(30)}" y="${y + s(18)}" font-family="DejaVu Sans" font-weight="bold" font-size="${s(8)}" fill="#111">$</text>` +
      `<text x="${x + s(35)}" y="${y + s(29)}" font-family="DejaVu Sans" font-weight="bold" font-size="${s(20)}" fill="#111">${price.dollars}</text>` +
      `<text x="${x + s(35) + s(13.5) * price.dollars.length}" y="${y + s(19)}" font-family="DejaVu Sans" font-weight="bold" font-size="${s(10)}" fill="#111">${price.cents}</text>`
    : `<text x="${x + s(24)}" y="${y + s(29)}" font-family="DejaVu Sans" font-weight="bold" font-size="${s(13)}" fill="#111">$${price.dollars}.${price.cents}</text>`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${s(150)}" height="${s(80)}">` +
    `<rect width="${s(150)}" height="${s(80)}" fill="#2a2a2a"/>` +
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="#f1efe6"/>${name}${shown}</svg>`;
  const photo = await decodePhoto(await sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toBuffer());
  return {
    rgb: { data: photo.rgb, width: photo.width, height: photo.height, channels: 3 },
    box: { x0: x, y0: y, x1: x + w, y1: y + h },
  };
}

describe('prices printed with raised cents', () => {
  let ocr: PaddleOcr;
  before(async () => {
    ocr = await PaddleOcr.create();
  });
  after(() => ocr.close());

  it('reads the dollars and the raised cents apart, as a shelf-02 label is photographed and twice that size (D381)', async () => {
    for (const scale of [1, 2])
      for (const [dollars, cents, value] of [
        ['1', '59', 1.59],
        ['2', '29', 2.29],
        ['12', '49', 12.49],
      ] as const) {
        const { rgb, box } = await label(scale, { dollars, cents, raised: true });
        assert.equal(await readRaisedCents(ocr, rgb, box), value, `$${dollars}^${cents} at ${scale}×`);
      }
  });

  it("reads a photographed shelf's euro labels, whose cents and sign run together into one glyph (D388)", async () => {
    // Seed 5's shelf-12 (third generator, tuning): `2¹⁹€` on labels ~50 px tall, where the two small
    // digits and the € touch. Its labels' boxes and prices from its truth; the offer labels print no
    // raised cents.
    const dir = resolve(import.meta.dirname, '../../../fixtures/third-generator-tune');
    const truth = JSON.parse(readFileSync(`${dir}/shelf-12.json`, 'utf8')) as {
      products: { price: number; label: { bbox: [number, number, number, number] } }[];
    };
    const photo = await decodePhoto(readFileSync(`${dir}/shelf-12.jpg`));
    const rgb = { data: photo.rgb, width: photo.width, height: photo.height, channels: 3 as const };
    const read = [];
    for (const { price, label } of truth.products) {
      const [x0, y0, x1, y1] = label.bbox;
      read.push({ price, read: await readRaisedCents(ocr, rgb, { x0, y0, x1, y1 }) });
    }
    const raised = read.filter((r) => r.read !== null);
    assert.ok(raised.length >= 8, `${raised.length} of ${read.length} labels read: ${JSON.stringify(read)}`);
    assert.deepEqual(
      raised.filter((r) => r.read !== r.price),
      [],
    );
  });

  it('reads nothing where the price is on one baseline: the label reading has it', async () => {
    const { rgb, box } = await label(2, { dollars: '1', cents: '59', raised: false });
    assert.equal(await readRaisedCents(ocr, rgb, box), null);
  });
});
