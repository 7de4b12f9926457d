import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CLOSE_LOOK } from '../../../../src/modules/recognition/engines/local/label-reader.js';
import { sharpenGrey } from '../../../../src/modules/recognition/engines/local/sharpen.js';
import { labelCrops } from '../../../helpers/label-crops.js';

/** sharp's sharpen({ sigma: 1.5 }) of a grey buffer after an optional resize, against sharpenGrey of the same resize. */
async function both(px: Buffer, width: number, height: number, resize?: number) {
  const pipeline = () => {
    const s = sharp(px, { raw: { width, height, channels: 1 } });
    return resize ? s.resize(resize) : s;
  };
  const want = await pipeline().sharpen({ sigma: 1.5 }).toColourspace('b-w').raw().toBuffer();
  const got = await pipeline().toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  sharpenGrey(got.data, got.info.width, got.info.height);
  return { want, got: got.data };
}

describe('sharpenGrey (sharp sharpen({ sigma: 1.5 }) for grey crops)', () => {
  it('gives the pixels sharp gives, on every label crop of two photos enlarged as the close look enlarges them', async () => {
    let crops = 0;
    for (const name of ['shelf-01', 'shelf-06']) {
      for (const { box, region, width, height } of await labelCrops(name)) {
        const scale = Math.max(1, Math.min(4, CLOSE_LOOK.height / height));
        const { want, got } = await both(region, width, height, Math.round(width * scale));
        assert.ok(got.equals(want), `${name} label at ${box.x0},${box.y0}`);
        crops++;
      }
    }
    assert.ok(crops > 30);
  });

  it('matches sharp on edge cases: images narrower and shorter than the mask, flat, hard edges, a full gradient, noise', async () => {
    const cases: Record<string, [number, number, (x: number, y: number) => number]> = {
      onePixel: [1, 1, () => 77],
      narrowerThanMask: [3, 40, (x, y) => (y % 4 < 2 ? 20 : 240)],
      shorterThanMask: [50, 2, (x) => (x % 6 < 3 ? 0 : 255)],
      flat: [32, 16, () => 128],
      twoTone: [64, 32, (x) => (x < 20 ? 30 : 220)],
      gradient: [64, 32, (x, y) => Math.round(((x + y * 64) * 255) / (64 * 32 - 1))],
      noise: [61, 37, (x, y) => (x * 7919 + y * 104729) % 256],
    };
    for (const [name, [w, h, at]] of Object.entries(cases)) {
      const px = Buffer.alloc(w * h);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) px[y * w + x] = at(x, y);
      const { want, got } = await both(px, w, h);
      assert.deepEqual([...got], [...want], name);
    }
  });
});
