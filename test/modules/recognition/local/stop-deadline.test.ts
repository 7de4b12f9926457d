import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { createLogger } from '../../../../src/lib/logger.js';
import { RecognitionPool } from '../../../../src/modules/recognition/engines/local/recognition-pool.js';
import { RecognitionRejectedError, type CatalogueEntry } from '../../../../src/modules/recognition/recognizer.js';
import { shelfInput } from '../../../helpers/shelf-photos.js';

const fixtures = resolve(import.meta.dirname, '../../../fixtures');
const catalogue = (set: string) =>
  JSON.parse(readFileSync(`${fixtures}/${set}/catalogue.json`, 'utf8')) as CatalogueEntry[];

describe('the recognition deadline stops the real recognizer', () => {
  const lines: string[] = [];
  const logger = createLogger('info', 'recognition', { write: (line: string) => void lines.push(line) });
  // One thread, and a deadline of 0.5 s of its processor time. The photo below, the costliest of our
  // shelf photos, at twice its size: it takes the thread 1.0–1.5 s on a quiet fast machine (OCR runs in
  // helper processes, whose time is not the thread's). As it is, it took 0.6–1.0 s there, and under a
  // 1 s deadline it was read to the end: the test passed only on machines slow or busy enough.
  const pool = new RecognitionPool(1, { deadlineMs: 500, logger });
  after(() => pool.close());

  it('the costliest photo we have is refused past the deadline, its thread leaves it off within a stage (well under a second of its processor time), and reads the next photo', async () => {
    await pool.warm();
    const second = 'second-generator-shelves';
    const costliest = await sharp(readFileSync(`${fixtures}/${second}/shelf-12.jpg`))
      .resize(4096, 3072)
      .jpeg({ quality: 90 })
      .toBuffer();
    await assert.rejects(
      pool.run(await shelfInput(costliest, catalogue(second))),
      (err: unknown) => err instanceof RecognitionRejectedError && err.code === 'IMAGE_TOO_COMPLEX',
    );
    // The next photo: the top shelf's left half of a first-generator photo (three labels). The whole
    // photo took the thread 0.4-0.55 s on a slower machine, against this test's 0.5 s deadline: it was
    // refused as well about one run in two there.
    const first = 'synthetic-shelves';
    const next = await sharp(readFileSync(`${fixtures}/${first}/shelf-01.jpg`))
      .extract({ left: 0, top: 0, width: 800, height: 320 })
      .jpeg({ quality: 90 })
      .toBuffer();
    const products = await pool.run(await shelfInput(next, catalogue(first)));
    assert.ok(products.length >= 2, JSON.stringify(products));
    // The pool reads the thread's processor time from /proc when it stops the photo and when the thread
    // is free again. The longest stage between two checkpoints is the text detector's one onnxruntime
    // run (0.1–0.4 s); without the stop the thread would read the photo's other 2.3 s first.
    const left = lines
      .map((l) => JSON.parse(l) as { msg: string; afterMs: number; threadCpuAfterMs: number | null })
      .find((l) => l.msg === 'a stopped photo has left its thread');
    assert.ok(left, lines.join(''));
    console.log(`# stopped to free: ${left.threadCpuAfterMs} ms of the thread's processor time, ${left.afterMs} ms`);
    assert.ok(left.threadCpuAfterMs !== null && left.threadCpuAfterMs < 1000, JSON.stringify(left));
    assert.deepEqual(pool.stats(), { running: 0, queued: 0, stopping: 0, lost: 0 });
  });
});
