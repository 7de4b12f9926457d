import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  CLOSE_LOOK,
  darkPrintOnLight,
  FIRST_LOOK,
  readLabels,
} from '../../../../src/modules/recognition/engines/local/label-reader.js';
import { OcrPool } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';
import { decodePhoto, greenChannel } from '../../../../src/modules/recognition/engines/local/photo.js';

// A crop of the second generator's tuning seed 2468 (`npm run synth:second -- --out DIR --count 24
// --seed 2468 --max-width 2400 --max-kb 580`), shelf-24, x 0-560, y 200-440: a red promotion label,
// "SAVE 19%" in red on a white strip over "Tidewater Salted Peanuts 200g NOW £1.49 WAS £1.85" in
// white on red, its symbol on a white patch. Turned over whole (its median is red), the strip's
// print went light on dark and tesseract read no name ("SAVE 19% Pea Clete Ne) eae ee seed").
const dir = resolve(import.meta.dirname, '../../../fixtures/tuning-crops');

describe('a label crop of two papers, light print on dark under dark print on light', () => {
  const ocr = new OcrPool(1);
  after(() => ocr.close());

  it('is turned over where its paper is dark, so the name on the red is read', async () => {
    const photo = await decodePhoto(readFileSync(`${dir}/s2-2468-shelf-24-promo.jpg`));
    // The label's paper as the paper finder gives it on the whole photo (y moved by the crop's 200).
    const box = { x0: 75, y0: 54, x1: 441, y1: 192 };
    const [first] = await readLabels(ocr, greenChannel(photo), [box], FIRST_LOOK);
    assert.match(first!.text, /Salted Peanuts/, `the first look reads the name: ${first!.text}`);
    const [close] = await readLabels(ocr, greenChannel(photo), [box], CLOSE_LOOK);
    assert.match(close!.text, /Tidewater Salted Peanuts/, `the close look reads the name: ${close!.text}`);
  });

  it('keeps light paper and its print as they are, and turns the dark paper with its print and counters', () => {
    // 40 × 20: a white strip (rows 0-5) with a dark dot of print, over dark paper (rows 6-19)
    // carrying a light letter (a ring, whose counter is dark).
    const width = 40,
      height = 20;
    const data = new Uint8Array(width * height).fill(30);
    for (let y = 0; y < 6; y++) for (let x = 0; x < width; x++) data[y * width + x] = 240;
    data[2 * width + 5] = 20;
    for (let y = 10; y < 15; y++) for (let x = 15; x < 20; x++) data[y * width + x] = 250;
    data[12 * width + 17] = 30; // the ring's counter
    darkPrintOnLight(data, width, height);
    assert.equal(data[1 * width + 1], 240, 'the white strip stays white');
    assert.equal(data[2 * width + 5], 20, 'its print stays dark');
    assert.equal(data[18 * width + 30], 225, 'the dark paper is turned light');
    assert.equal(data[10 * width + 16], 5, 'the light print on it is turned dark');
    assert.equal(data[12 * width + 17], 225, 'the counter inside that print goes with its paper');
  });

  it('turns over a crop of one dark paper whole, and leaves one of light paper', () => {
    const dark = new Uint8Array(100).fill(40);
    dark[55] = 230;
    darkPrintOnLight(dark, 10, 10);
    assert.deepEqual([dark[0], dark[55]], [215, 25]);
    const light = new Uint8Array(100).fill(230);
    light[55] = 20;
    darkPrintOnLight(light, 10, 10);
    assert.deepEqual([light[0], light[55]], [230, 20]);
  });
});
