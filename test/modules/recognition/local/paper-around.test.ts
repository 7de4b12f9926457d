import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { paperAround } from '../../../../src/modules/recognition/engines/local/bar-label-finder.js';
import type { Box } from '../../../../src/modules/recognition/engines/local/ocr-types.js';
import { decodePhoto } from '../../../../src/modules/recognition/engines/local/photo.js';

/**
 * A promotion label as the second generator draws one: red paper, a white header strip, the name in
 * white print, the NOW price large, a white barcode patch at the right and the WAS price at the
 * bottom left (the only line the text detector found on such labels of a tuning seed), on a grey
 * shelf edge under packs.
 */
const LABEL: Box = { x0: 300, y0: 280, x1: 900, y1: 440 };
const WAS: Box = { x0: 314, y0: 400, x1: 440, y1: 430 };
const photoOf = async (shelf: string) =>
  decodePhoto(
    await sharp(
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="600">
        <rect width="1200" height="600" fill="#8a7f72"/>
        <rect x="0" y="270" width="1200" height="180" fill="${shelf}"/>
        <rect x="${LABEL.x0}" y="${LABEL.y0}" width="600" height="160" fill="#c8102e"/>
        <rect x="${LABEL.x0}" y="${LABEL.y0}" width="600" height="26" fill="#ffffff"/>
        <text x="310" y="300" font-family="sans-serif" font-weight="bold" font-size="18" fill="#c8102e">SAVE 22%</text>
        <text x="310" y="336" font-family="sans-serif" font-weight="bold" font-size="24" fill="#ffffff">Stonebay Soy Sauce 150ml</text>
        <text x="310" y="386" font-family="sans-serif" font-weight="bold" font-size="44" fill="#ffffff">NOW €1.79</text>
        <rect x="700" y="350" width="180" height="44" fill="#ffffff"/>
        <text x="${WAS.x0}" y="${WAS.y1 - 4}" font-family="sans-serif" font-weight="bold" font-size="26" fill="#ffffff">WAS €2.29</text>
      </svg>`),
    )
      .jpeg({ quality: 85 })
      .toBuffer(),
  );

describe('paperAround: the label a price line stands on, found by its paper (D290)', () => {
  it('takes in the whole red label from its WAS line, name and NOW price included (above and right of the line)', async () => {
    const [found] = await paperAround(await photoOf('#d9d4c8'), [WAS]);
    assert.ok(found, 'a label found around the line');
    // Its red paper, to the shrunk copy's precision (4 px) and the header strip's white (not red) at most.
    assert.ok(Math.abs(found.x0 - LABEL.x0) <= 8 && Math.abs(found.x1 - LABEL.x1) <= 8, JSON.stringify(found));
    assert.ok(found.y0 <= 310 && found.y0 >= LABEL.y0 - 8 && Math.abs(found.y1 - LABEL.y1) <= 8, JSON.stringify(found));
  });

  it('finds nothing where the paper takes in another label read as such, or runs on as a shelf edge does', async () => {
    const photo = await photoOf('#d9d4c8');
    // Another read label standing on the same paper (a row of labels on one strip): not one label.
    const neighbour: Box = { x0: 760, y0: 300, x1: 880, y1: 340 };
    assert.deepEqual(await paperAround(photo, [WAS], [neighbour]), [null]);
    // The line's own crop (it overlaps the line) does not count as another label.
    assert.notEqual((await paperAround(photo, [WAS], [{ ...WAS, x1: WAS.x1 + 20 }]))[0], null);
    // A price line printed on the shelf edge's own colour across the photo: the fill outgrows a label.
    const strip = await photoOf('#c8102e');
    assert.deepEqual(await paperAround(strip, [WAS]), [null]);
  });
});
