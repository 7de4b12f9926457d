import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { stretchContrast } from '../../../../src/modules/recognition/engines/local/contrast.js';
import { findLabelBoxes } from '../../../../src/modules/recognition/engines/local/label-finder.js';
import { decodePhoto } from '../../../../src/modules/recognition/engines/local/photo.js';
import { labelCrops } from '../../../helpers/label-crops.js';

const dir = resolve(import.meta.dirname, '../../../fixtures/synthetic-shelves');

/** What sharp makes of a grey buffer with normalise(), against the same pipeline without it, stretched here. */
async function both(px: Buffer, width: number, height: number, resize?: number, sharpen = false) {
  const pipeline = () => {
    let s = sharp(px, { raw: { width, height, channels: 1 } });
    if (resize) s = s.resize(resize);
    return sharpen ? s.sharpen({ sigma: 1.5 }) : s;
  };
  const want = await pipeline().normalise().toColourspace('b-w').raw().toBuffer();
  const got = await pipeline().toColourspace('b-w').raw().toBuffer();
  stretchContrast(got);
  return { want, got };
}

describe('stretchContrast (sharp normalise() for grey crops)', () => {
  it('gives the pixels sharp gives, on every label crop of two photos, at both looks', async () => {
    let crops = 0;
    for (const name of ['shelf-03', 'shelf-06']) {
      for (const { box, region, width, height } of await labelCrops(name)) {
        for (const [target, sharpen] of [
          [110, false],
          [220, true],
        ] as const) {
          const { want, got } = await both(
            region,
            width,
            height,
            Math.round(width * Math.max(1, target / height)),
            sharpen,
          );
          assert.ok(got.equals(want), `${name} label at ${box.x0},${box.y0}, ${target} px`);
          crops++;
        }
      }
    }
    assert.ok(crops > 40);
  });

  it('gives the pixels sharp gives for a colour photo turned grey (the tag reader and barcode paths)', async () => {
    const jpeg = readFileSync(`${dir}/shelf-08.jpg`);
    const photo = await decodePhoto(jpeg);
    for (const box of (await findLabelBoxes(photo)).slice(0, 6)) {
      const left = Math.floor(box.x0);
      const top = Math.floor(box.y0);
      const width = Math.ceil(box.x1) - left;
      const height = Math.ceil(box.y1) - top;
      const scale = Math.max(1, Math.min(8, 240 / height));
      const pipeline = () =>
        sharp(jpeg)
          .extract({ left, top, width, height })
          .resize(Math.round(width * scale), Math.round(height * scale), { kernel: 'lanczos3' })
          .greyscale();
      const want = await pipeline().normalise().raw().toBuffer();
      const got = await pipeline().raw().toBuffer();
      stretchContrast(got);
      assert.ok(got.equals(want), `label at ${box.x0},${box.y0}`);
    }
  });

  it('matches sharp on edge cases: flat, two-tone, a dark crop with no white, a full gradient', async () => {
    const w = 64;
    const h = 32;
    const cases: Record<string, (x: number, y: number) => number> = {
      flat: () => 128,
      twoTone: (x) => (x < 20 ? 30 : 220),
      darkNoWhite: (x, y) => 10 + ((x * 7 + y * 3) % 90),
      gradient: (x, y) => Math.round(((x + y * w) * 255) / (w * h - 1)),
      // One percent of near-black ink on white paper: the lower percentile lands right on a bin edge.
      sparseInk: (x, y) => ((x + y * w) % 100 < 2 ? 12 : 243),
    };
    for (const [name, at] of Object.entries(cases)) {
      const px = Buffer.alloc(w * h);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) px[y * w + x] = at(x, y);
      const { want, got } = await both(px, w, h);
      assert.deepEqual([...got], [...want], name);
    }
  });
});
