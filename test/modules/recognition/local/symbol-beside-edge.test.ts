import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RecognitionEngines } from '../../../../src/modules/recognition/engines/index.js';
import { FIRST_LOOK, readLabels } from '../../../../src/modules/recognition/engines/local/label-reader.js';
import { OcrPool } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';
import { decodePhoto, greenChannel } from '../../../../src/modules/recognition/engines/local/photo.js';
import type { CatalogueEntry, Recognizer } from '../../../../src/modules/recognition/recognizer.js';
import { shelfInput } from '../../../helpers/shelf-photos.js';

// Two crops of the second generator's tuning photos (`npm run synth:second -- --out DIR --count 24
// --seed S --max-width 2400 --max-kb 580`): seed 8642's shelf-11, x 1400-2048, y 700-1152 (a white
// label, MOORLAND TUNA CHUNKS 145G £1.25, and a blue-edged one beside it), and seed 2468's shelf-07,
// x 0-900, y 330-650 (Orchard Row Tomato Ketchup 460g £1.49, its symbol under the name and against
// the label's dark left edge). On both, the symbol's bar cells join the label's dark edge (its border,
// or the shelf beside the crop) into one region too sparse to be taken for a symbol: the bars were
// left in for tesseract, which read them as junk over the name and gave no name at all.
const dir = resolve(import.meta.dirname, '../../../fixtures/tuning-crops');
const catalogueOf = (seed: string) =>
  JSON.parse(readFileSync(`${dir}/s2-${seed}-catalogue.json`, 'utf8')) as CatalogueEntry[];

describe('a label symbol joined to the label crop’s dark edge', () => {
  const engines = new RecognitionEngines();
  const ocr = new OcrPool(1);
  let recognizer: Recognizer;
  before(async () => {
    recognizer = await engines.create('local');
  });
  after(async () => {
    await engines.close();
    await ocr.close();
  });

  it('is found and blanked, so the name beside it is read', async () => {
    const photo = await decodePhoto(readFileSync(`${dir}/s2-2468-shelf-07-left.jpg`));
    // The label's paper as the paper finder gives it on the whole photo (y moved by the crop's 330).
    const [reading] = await readLabels(ocr, greenChannel(photo), [{ x0: 64, y0: 158, x1: 432, y1: 262 }], FIRST_LOOK);
    assert.equal(reading!.barcodes.length + reading!.smallBarcodes.length, 1, 'the symbol is found');
    assert.match(reading!.text, /Tomato Ketchup/, `the name is read: ${reading!.text}`);
  });

  it('names the product of a label whose symbol stands against its edge', async () => {
    const products = await recognizer.recognize(
      await shelfInput(readFileSync(`${dir}/s2-8642-shelf-11-right.jpg`), catalogueOf('8642')),
    );
    const skus = products.map((p) => `${p.sku}:${p.price}`);
    assert.ok(skus.includes('S2-GBP-CAN-009:1.25'), `Moorland Tuna Chunks at £1.25: ${skus.join(', ')}`);
    assert.ok(skus.includes('S2-GBP-SNK-012:1.65'), `Hollybrook Sea Salt Crisps at £1.65: ${skus.join(', ')}`);
  });
});
