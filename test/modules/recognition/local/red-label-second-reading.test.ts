import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RecognitionEngines } from '../../../../src/modules/recognition/engines/index.js';
import { colouredPaperBoxes } from '../../../../src/modules/recognition/engines/local/coloured-paper.js';
import { darkPrintOnLight } from '../../../../src/modules/recognition/engines/local/label-reader.js';
import { decodePhoto } from '../../../../src/modules/recognition/engines/local/photo.js';
import type { CatalogueEntry, Recognizer } from '../../../../src/modules/recognition/recognizer.js';
import { shelfInput } from '../../../helpers/shelf-photos.js';

// A piece of a photo of the second generator's tuning seed 2468 (shelf-08, x 100-800, y 1040-1440:
// `npm run synth:second -- --out DIR --count 24 --seed 2468 --max-width 2400 --max-kb 580`). In the
// middle, a red promotion label: "MIX & MATCH" in red on a white strip over "Hollybrook Salted
// Peanuts 200g 3 for £3.50 £1.65 each" in white on red, its symbol on a white patch; a white label on
// each side, packs above. The usual readings name nothing on the red label (D325): it is found only
// by the second reading of its red paper, turned over paper by paper on a sheet of its own (D340).
const dir = resolve(import.meta.dirname, '../../../fixtures/tuning-crops');
const catalogue = JSON.parse(readFileSync(`${dir}/s2-2468-catalogue.json`, 'utf8')) as CatalogueEntry[];
const image = readFileSync(`${dir}/s2-2468-shelf-08-promo.jpg`);

describe('a red promotion label, read a second time turned over paper by paper (D340)', () => {
  const engines = new RecognitionEngines();
  let recognizer: Recognizer;
  before(async () => {
    recognizer = await engines.create('local');
  });
  after(() => engines.close());

  it('is found and priced, and its neighbours as before', async () => {
    const products = await recognizer.recognize(await shelfInput(image, catalogue));
    const peanuts = products.find((p) => p.sku === 'S2-GBP-SNK-020');
    assert.ok(peanuts, `the red label's peanuts: ${products.map((p) => `${p.sku} ${p.price}`).join(', ')}`);
    assert.equal(peanuts.price, 1.65);
    assert.ok(
      products.some((p) => p.sku === 'S2-GBP-BRK-015'),
      'the bran flakes beside it',
    );
    // Nothing named that is not on the shelf.
    const onShelf = new Set(['S2-GBP-SNK-020', 'S2-GBP-BRK-015', 'S2-GBP-SAU-008']);
    for (const p of products) if (p.sku) assert.ok(onShelf.has(p.sku), `${p.sku} is not on this shelf`);
  });

  it("finds the label's red paper and no pack's colour as coloured paper", async () => {
    const boxes = await colouredPaperBoxes(await decodePhoto(image));
    assert.equal(boxes.length, 1, JSON.stringify(boxes));
    const [box] = boxes;
    // The red part of the label (x 145-480, y 220-318), not the red ring on the pack above it.
    assert.ok(box!.x0 >= 135 && box!.x0 <= 155 && box!.x1 >= 470 && box!.x1 <= 490, JSON.stringify(box));
    assert.ok(box!.y0 >= 210 && box!.y0 <= 230 && box!.y1 >= 305 && box!.y1 <= 325, JSON.stringify(box));
  });

  it('turns the dark paper over with its print and counters, and keeps light paper and its print', () => {
    // 40 × 20: a white strip (rows 0-5) with a dark dot of print, over dark paper (rows 6-19)
    // carrying a light letter (a ring, whose counter is dark).
    const width = 40,
      height = 20;
    const data = new Uint8Array(width * height).fill(30);
    for (let y = 0; y < 6; y++) for (let x = 0; x < width; x++) data[y * width + x] = 240;
    data[2 * width + 5] = 20;
    for (let y = 10; y < 15; y++) for (let x = 15; x < 20; x++) data[y * width + x] = 250;
    data[12 * width + 17] = 30; // the ring's counter
    assert.equal(darkPrintOnLight(data, width, height), true);
    assert.equal(data[1 * width + 1], 240, 'the white strip stays white');
    assert.equal(data[2 * width + 5], 20, 'its print stays dark');
    assert.equal(data[18 * width + 30], 225, 'the dark paper is turned light');
    assert.equal(data[10 * width + 16], 5, 'the light print on it is turned dark');
    assert.equal(data[12 * width + 17], 225, 'the counter inside that print goes with its paper');
  });

  it('turns a crop of one dark paper over whole, and leaves one of light paper', () => {
    const dark = new Uint8Array(100).fill(40);
    dark[55] = 230;
    assert.equal(darkPrintOnLight(dark, 10, 10), false);
    assert.deepEqual([dark[0], dark[55]], [215, 25]);
    const light = new Uint8Array(100).fill(230);
    light[55] = 20;
    assert.equal(darkPrintOnLight(light, 10, 10), false);
    assert.deepEqual([light[0], light[55]], [230, 20]);
  });
});
