import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { LocalRecognizer } from '../../../../src/modules/recognition/engines/local/local-recognizer.js';
import { OcrPool } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';
import { RecognitionPool } from '../../../../src/modules/recognition/engines/local/recognition-pool.js';
import { warmUpInput } from '../../../../src/modules/recognition/engines/local/warm-up.js';

describe('recognition threads warm up before the first photo', () => {
  const pool = new RecognitionPool(2, { engine: 'native' });
  const ocr = new OcrPool(1, 'fast', 'native');
  after(async () => {
    await pool.close();
    await ocr.close();
  });

  it('the warm-up photo goes through every stage: its one label is found and its price read', async () => {
    const products = await new LocalRecognizer({ ocr }).recognize(await warmUpInput());
    assert.equal(products.length, 1, JSON.stringify(products));
    assert.equal(products[0]!.price, 1);
    assert.match(products[0]!.description ?? '', /Cola/);
  });

  it('warm() has every thread of the pool read it once', async () => {
    const warmed = await pool.warm();
    assert.equal(new Set(warmed.map((w) => w.threadId)).size, 2, JSON.stringify(warmed));
    assert.deepEqual(
      warmed.map((w) => w.products),
      [1, 1],
    );
  });
});
